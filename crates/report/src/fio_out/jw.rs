//! An ordered JSON value and a writer in fio's layout (two-space indent, `"key" : value`,
//! floats with six decimals): fio's readers see the document fio would print, keys in fio's
//! order (serde_json's map would sort them).

/// A JSON value whose objects keep their keys' order.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum J {
    U(u64),
    I(i64),
    /// Written `%.6f`, as fio writes its doubles.
    F(f64),
    S(String),
    O(Vec<(String, J)>),
    A(Vec<J>),
}

/// Object builder: `obj().u("a", 1).f("b", 2.0)`.
#[derive(Default)]
pub(super) struct Obj(pub Vec<(String, J)>);

pub(super) fn obj() -> Obj {
    Obj::default()
}

impl Obj {
    pub fn put(mut self, k: &str, v: J) -> Obj {
        self.0.push((k.to_string(), v));
        self
    }
    pub fn u(self, k: &str, v: u64) -> Obj {
        self.put(k, J::U(v))
    }
    pub fn i(self, k: &str, v: i64) -> Obj {
        self.put(k, J::I(v))
    }
    pub fn f(self, k: &str, v: f64) -> Obj {
        self.put(k, J::F(v))
    }
    pub fn s(self, k: &str, v: &str) -> Obj {
        self.put(k, J::S(v.to_string()))
    }
    pub fn done(self) -> J {
        J::O(self.0)
    }
}

impl J {
    /// The document as fio prints it, ending with a newline.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        let pad = |n: usize| "  ".repeat(n);
        match self {
            J::U(v) => out.push_str(&v.to_string()),
            J::I(v) => out.push_str(&v.to_string()),
            J::F(v) if v.is_finite() => out.push_str(&format!("{v:.6}")),
            J::F(_) => out.push_str("0.000000"),
            J::S(s) => out.push_str(&serde_json::to_string(s).expect("a string serializes")),
            J::O(kv) if kv.is_empty() => out.push_str("{}"),
            J::A(items) if items.is_empty() => out.push_str("[]"),
            J::O(kv) => {
                out.push_str("{\n");
                for (i, (k, v)) in kv.iter().enumerate() {
                    out.push_str(&pad(depth + 1));
                    out.push_str(&serde_json::to_string(k).expect("a string serializes"));
                    out.push_str(" : ");
                    v.write(out, depth + 1);
                    out.push_str(if i + 1 < kv.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(depth));
                out.push('}');
            }
            J::A(items) => {
                out.push_str("[\n");
                for (i, v) in items.iter().enumerate() {
                    out.push_str(&pad(depth + 1));
                    v.write(out, depth + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(depth));
                out.push(']');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_and_writes_fios_layout() {
        let d = obj()
            .s("fio version", "fio-3.33")
            .f("iops", 1.5)
            .put("jobs", J::A(vec![obj().u("b", 1).u("a", 2).done()]))
            .done();
        let text = d.to_text();
        assert_eq!(
            text,
            "{\n  \"fio version\" : \"fio-3.33\",\n  \"iops\" : 1.500000,\n  \"jobs\" : [\n    {\n      \"b\" : 1,\n      \"a\" : 2\n    }\n  ]\n}\n"
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["jobs"][0]["a"], 2);
    }
}
