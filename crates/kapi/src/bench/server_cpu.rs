//! CPU time the API server process spends per operation, when it runs on this machine: the
//! figure that does not move with the load tool (which shares the machine's cores). The
//! server is found by the loopback port of its URL (the process listening on it), or named
//! with `--server-pid`; its user and system time are read from `/proc/<pid>/stat` at the
//! start and end of each phase. The load tool's own CPU time per operation is measured
//! beside it (`getrusage`), since on one machine the two share the cores.

use std::sync::Mutex;

/// The server process followed and its CPU seconds when the current phase started.
struct Meter {
    pid: u32,
    mark: Option<f64>,
}

static METER: Mutex<Option<Meter>> = Mutex::new(None);

/// The load tool's own CPU seconds when the current phase started.
static OWN_MARK: Mutex<Option<f64>> = Mutex::new(None);

fn meter() -> std::sync::MutexGuard<'static, Option<Meter>> {
    METER.lock().unwrap_or_else(|p| p.into_inner())
}

/// Follows process `pid` from now on (`None`: no local server, no CPU figures).
pub fn follow(pid: Option<u32>) {
    *meter() = pid.map(|pid| Meter { pid, mark: None });
}

/// Marks the start of a measured phase.
pub fn phase_started() {
    if let Some(m) = meter().as_mut() {
        m.mark = cpu_seconds(m.pid);
    }
    *OWN_MARK.lock().unwrap_or_else(|p| p.into_inner()) = own_cpu_seconds();
}

/// CPU seconds this process (the load tool) used since the phase started; `None` before the
/// first phase.
pub fn phase_own_cpu_seconds() -> Option<f64> {
    let mark = (*OWN_MARK.lock().unwrap_or_else(|p| p.into_inner()))?;
    Some(own_cpu_seconds()? - mark)
}

/// User plus system CPU seconds of this process, all its threads (`getrusage`, microsecond
/// resolution where `/proc/<pid>/stat` counts in clock ticks).
pub fn own_cpu_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the rusage it is pointed at and reports failure by its result.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: getrusage returned 0, so it wrote the whole struct (which started zeroed).
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// CPU seconds the followed server used since the phase started.
pub fn phase_cpu_seconds() -> Option<f64> {
    let guard = meter();
    let m = guard.as_ref()?;
    Some(cpu_seconds(m.pid)? - m.mark?)
}

/// User plus system CPU seconds of process `pid` (all its threads), from `/proc`.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat_cpu_ticks(&stat).map(|ticks| ticks as f64 / clock_ticks_per_second())
}

/// utime + stime (fields 14 and 15) of a `/proc/<pid>/stat` line; the command name (field 2)
/// may hold spaces and parentheses, so fields are counted after its last `)`.
fn parse_stat_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): utime is field 14, stime field 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf reads a configuration value and has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

/// Resident memory of process `pid` in MiB (`VmRSS` of `/proc/<pid>/status`).
pub fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// The process listening on the loopback port of `url`, when the server is local.
pub fn local_server_pid(url: &str) -> Option<u32> {
    let uri: http::Uri = url.parse().ok()?;
    let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
    if !matches!(host, "127.0.0.1" | "localhost" | "::1") {
        return None;
    }
    let port = uri.port_u16().unwrap_or(443);
    let inodes: Vec<String> = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|table| listening_inodes(&table, port))
        .collect();
    if inodes.is_empty() {
        return None;
    }
    let me = std::process::id();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path())
                && let Some(inode) = target
                    .to_str()
                    .and_then(|t| t.strip_prefix("socket:["))
                    .and_then(|t| t.strip_suffix(']'))
                && inodes.iter().any(|i| i == inode)
            {
                return Some(pid);
            }
        }
    }
    None
}

/// Inodes of the sockets in a `/proc/net/tcp{,6}` table that listen on `port`.
fn listening_inodes(table: &str, port: u16) -> Vec<String> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let local_port = cols.get(1)?.rsplit_once(':')?.1;
            let listening = *cols.get(3)? == "0A";
            (listening && u16::from_str_radix(local_port, 16).ok()? == port)
                .then(|| cols.get(9).map(|s| (*s).to_owned()))
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_cpu_ticks_are_counted_after_the_command_name() {
        let stat =
            "4242 (kapi (server) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 1 2 3";
        assert_eq!(parse_stat_cpu_ticks(stat), Some(300));
    }

    #[test]
    fn listening_sockets_are_found_by_port() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:1A0B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0 100 0 0 10 0\n   1: 0100007F:1A0B 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 888 1 0 100 0 0 10 0\n";
        assert_eq!(listening_inodes(table, 0x1A0B), vec!["777".to_owned()]);
        assert!(listening_inodes(table, 443).is_empty());
    }

    #[test]
    fn this_process_has_cpu_seconds_and_resident_memory() {
        assert!(cpu_seconds(std::process::id()).is_some());
        assert!(rss_mib(std::process::id()).is_some_and(|m| m > 0.0));
    }

    #[test]
    fn the_load_tools_own_cpu_time_grows_with_work() {
        phase_started();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        assert!(phase_own_cpu_seconds().is_some_and(|s| s > 0.0));
    }

    #[test]
    fn a_remote_server_is_not_local() {
        assert_eq!(local_server_pid("https://10.1.2.3:6443"), None);
    }
}
