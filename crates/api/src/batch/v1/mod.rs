//! batch/v1: Jobs and CronJobs. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::{set_defaults_cron_job, set_defaults_job};
pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// batch/v1's apiVersion.
pub const GROUP_VERSION: &str = "batch/v1";

/// Registers batch/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("batch", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<Job>(set_defaults_job);
    scheme.add_type_defaulting_func::<JobList>(|l| l.items.iter_mut().for_each(set_defaults_job));
    scheme.add_type_defaulting_func::<CronJob>(set_defaults_cron_job);
    scheme.add_type_defaulting_func::<CronJobList>(|l| {
        l.items.iter_mut().for_each(set_defaults_cron_job)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
