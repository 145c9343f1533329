//! One conformance suite for every backend: each case in `conformance_cases` runs against the
//! embedded store and against a real etcd started for the test.

mod conformance_cases;
mod support;

use conformance_cases::{compaction, reads, watch, writes};

/// Declares one `#[tokio::test]` per case, each on a fresh store from `$factory`.
macro_rules! cases {
    ($factory:path; $($module:ident :: $case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let harness = $factory().await;
                super::$module::$case(&*harness.store).await;
            }
        )*
    };
}

/// Instantiates the whole suite for one backend.
macro_rules! suite {
    ($factory:path) => {
        cases!($factory;
            writes::create_assigns_next_revision_and_version_one,
            writes::create_of_existing_key_fails_with_already_exists_and_current_value,
            writes::update_with_matching_mod_revision_replaces_value,
            writes::update_with_stale_mod_revision_fails_with_conflict_and_current,
            writes::update_of_missing_key_fails_with_not_found,
            writes::put_creates_then_replaces_unconditionally,
            writes::delete_with_matching_revision_removes_key_and_returns_prev,
            writes::delete_with_stale_revision_fails_with_conflict,
            writes::delete_of_missing_key_fails_with_not_found,
            writes::unconditional_delete_removes_key,
            writes::recreate_after_delete_starts_a_new_life,
            writes::each_write_advances_the_revision_by_one,
            writes::empty_key_is_rejected,
            writes::large_binary_value_round_trips,
            reads::get_at_old_revision_returns_the_value_of_that_time,
            reads::range_returns_only_keys_under_the_prefix_in_key_order,
            reads::range_pages_with_limit_and_start_after_cover_every_key_once,
            reads::range_count_includes_keys_beyond_the_limit,
            reads::range_without_count_stops_at_the_limit_and_still_says_more,
            reads::range_at_a_revision_is_consistent_across_pages_despite_writes,
            reads::range_of_empty_prefix_returns_every_key,
            reads::range_larger_than_four_mebibytes_returns_every_key,
            reads::range_at_a_future_revision_fails_with_future_revision,
            reads::count_counts_live_keys_under_the_prefix,
            watch::watch_prefix_delivers_puts_and_deletes_in_revision_order,
            watch::watch_ignores_keys_outside_the_prefix,
            watch::watch_of_a_key_ignores_other_keys_with_that_prefix,
            watch::watch_from_a_revision_replays_history_then_follows,
            watch::watch_with_prev_kv_carries_the_previous_value,
            watch::watch_request_progress_reports_the_current_revision,
            watch::watch_with_progress_notify_reports_progress_while_idle,
            watch::many_watchers_each_see_every_event,
            watch::watchers_started_during_concurrent_writes_see_every_revision_once,
            compaction::reads_before_the_compacted_revision_fail_with_compacted,
            compaction::reads_at_and_after_the_compacted_revision_still_work,
            compaction::watch_from_before_the_compacted_revision_fails_with_compacted,
            compaction::watch_from_the_compacted_revision_replays_with_previous_values,
            compaction::compacting_again_at_or_below_the_compacted_revision_fails,
            compaction::compacting_beyond_the_current_revision_fails_with_future_revision,
            compaction::writes_after_compaction_continue_the_revision_sequence,
        );
    };
}

mod embedded {
    suite!(crate::support::embedded);
}

mod etcd {
    suite!(crate::support::etcd);
}
