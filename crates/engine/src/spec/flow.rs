//! fio's token flow (`flow`, `flow_id`, `flow_sleep`): jobs of one run sharing a flow id keep
//! their I/O counts in the ratio of their weights. The run gives each flow id one shared counter
//! (`worker/flow.rs`); a job issues an I/O only while its own count's share of the counter is at
//! most its weight's share of the flow's total weight, else it waits `flow_sleep` (a yield when
//! 0) and tries again — fio 3.33's `flow.c`, as facts: the counter starts at 1, a job adds its
//! weight when it starts and takes its count and weight back when it ends.

/// One job's place in a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Flow {
    /// fio's `flow_id` (default 0: the global flow).
    #[serde(default)]
    pub id: u32,
    /// fio's `flow`: the job's weight (1 to 1000; 0 takes the job out of flows).
    pub weight: u32,
    /// fio's `flow_sleep`: the pause when the job is ahead of its share (0: yield the CPU).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sleep_ns: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// fio's `FLOW_MAX_WEIGHT`.
pub const MAX_WEIGHT: u32 = 1000;
