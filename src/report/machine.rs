//! The machine a sweep ran on, and the process's peak resident memory.

use serde::{Deserialize, Serialize};

/// What the report says about the machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// CPU model name (`/proc/cpuinfo`), or `unknown`.
    pub cpu_model: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Total memory in bytes (`/proc/meminfo`), if known.
    pub memory_bytes: Option<u64>,
    /// Operating system (`/etc/os-release` and kernel release on Linux) and architecture.
    pub os: String,
    /// fimdup version.
    pub fimdup_version: String,
}

impl MachineInfo {
    /// Detects the current machine (Linux `/proc` and `/etc`; generic values elsewhere).
    pub fn detect() -> Self {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let memory_bytes = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|s| crate::spill::kb_field(&s, "MemTotal:"));
        let mut os = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                    .map(|v| v.trim_matches('"').to_string())
            })
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        if let Ok(k) = std::fs::read_to_string("/proc/sys/kernel/osrelease") {
            os.push_str(&format!(", kernel {}", k.trim()));
        }
        os.push_str(&format!(", {}", std::env::consts::ARCH));
        MachineInfo {
            cpu_model,
            cores,
            memory_bytes,
            os,
            fimdup_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}
