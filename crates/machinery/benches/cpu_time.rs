//! A criterion measurement of the benchmark thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
//! so that results stay meaningful on a busy shared machine; reported in ns, like WallTime.

use criterion::Throughput;
use criterion::measurement::{Measurement, ValueFormatter};

/// Thread CPU time in nanoseconds.
pub struct CpuTime;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec we pass, which lives on our stack.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, started: u64) -> u64 {
        thread_cpu_ns().saturating_sub(started)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &NanosFormatter
    }
}

/// Formats nanoseconds and bytes per second like criterion's wall-time formatter.
struct NanosFormatter;

impl ValueFormatter for NanosFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e-3, "µs")
        } else if typical < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per_iter = match throughput {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => *b as f64,
            Throughput::Elements(e) | Throughput::ElementsAndBytes { elements: e, .. } => *e as f64,
            _ => 1.0,
        };
        let _ = typical;
        // values are ns per iteration; convert to MB/s (10^6 bytes per second).
        values
            .iter_mut()
            .for_each(|v| *v = per_iter * 1e9 / *v / 1e6);
        "MB/s"
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
