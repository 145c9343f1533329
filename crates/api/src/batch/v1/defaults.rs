//! batch/v1 defaults, as pkg/apis/batch/v1/defaults.go sets them: completions and
//! parallelism, backoff limit, completion mode, suspend, pod replacement policy; CronJob
//! concurrency and history limits; the pod templates' defaults.

use super::types::*;
use crate::core::v1::set_defaults_pod_template_spec;

fn default_job_spec(s: &mut JobSpec) {
    match (s.completions, s.parallelism) {
        (None, None) => {
            s.completions = Some(1);
            s.parallelism = Some(1);
        }
        (_, None) => s.parallelism = Some(1),
        _ => {}
    }
    if s.backoff_limit.is_none() {
        s.backoff_limit = Some(if s.backoff_limit_per_index.is_some() {
            i32::MAX
        } else {
            6
        });
    }
    s.completion_mode.get_or_insert_with(|| "NonIndexed".into());
    s.suspend.get_or_insert(false);
    if s.pod_replacement_policy.is_none() {
        s.pod_replacement_policy = Some(if s.pod_failure_policy.is_some() {
            "Failed".into()
        } else {
            "TerminatingOrFailed".into()
        });
    }
    if let Some(p) = &mut s.pod_failure_policy {
        for rule in p.rules.iter_mut().flatten() {
            for pattern in &mut rule.on_pod_conditions {
                if pattern.status.is_empty() {
                    pattern.status = "True".into();
                }
            }
        }
    }
    set_defaults_pod_template_spec(&mut s.template);
}

/// `SetDefaults_Job`: also the template's labels as the Job's when it has none.
pub fn set_defaults_job(j: &mut Job) {
    default_job_spec(&mut j.spec);
    if j.metadata.labels.is_empty() {
        j.metadata.labels = j.spec.template.metadata.labels.clone();
    }
}

/// `SetDefaults_CronJob`.
pub fn set_defaults_cron_job(c: &mut CronJob) {
    let s = &mut c.spec;
    if s.concurrency_policy.is_empty() {
        s.concurrency_policy = "Allow".into();
    }
    s.suspend.get_or_insert(false);
    s.successful_jobs_history_limit.get_or_insert(3);
    s.failed_jobs_history_limit.get_or_insert(1);
    set_defaults_pod_template_spec(&mut s.job_template.spec.template);
}
