//! `mjolnir`: the Forge pack pipeline's command line. See `cli` for the commands.

mod asset_build;
mod asset_lint;
mod asset_review;
mod cli;
mod codes;
mod compat;
mod config;
mod cook;
mod did_you_mean;
mod errors;
mod haf_loader;
mod housekeeping;
mod html;
mod inspect;
mod loaded_pack;
mod map;
mod previews;
mod print;
mod probe;
mod progress;
mod release;
mod report;
mod scaffold;
mod usage;
mod validate;
mod watch;

// One implementation of atomic writes serves the cook and the launcher.
use mjolnir_files::atomic;
// The Forge layer's modules, which the commands name as their own.
use forge::{donors, layout, paks, plan, steps, suggest, wiring};
// The build engine's modules, under the names the Forge layer has always used.
use engine::{
    execute, fingerprint, graph, keyed_log, lock, materialize, remote, seal, spare, stat_cache,
    store,
};

fn main() {
    with_huge_pages();
    // Like other command-line tools, end quietly when the reader of our output goes away
    // (`mjolnir forge inspect x.utoc | head`) instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and restores the default action, both
    // async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    keep_freed_memory_at_hand();
    std::process::exit(cli::run());
}

/// glibc's malloc hands memory back to the system as soon as the top of a thread's arena
/// is free, and maps it again at the next large allocation: a cook makes and drops outputs
/// of a hundred KiB and more on every thread, and each round trip was an `mprotect` (the
/// other core's TLB flushed with it) and fresh page faults: one edit made 700 such calls
/// on one worker thread. Keeping up to 64 MiB at hand (and growing by 16 MiB) took a
/// catalog-sized edit from 75 ms to 72 and the stock packs' from 15.0 ms to 12.2 (medians
/// of 20 interleaved edits), for about a MiB of peak RSS.
fn keep_freed_memory_at_hand() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters, before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 16 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// The glibc tunable that has malloc ask for transparent huge pages for the memory it maps.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_PAGES: &str = "glibc.malloc.hugetlb=1";

/// Where the system hands out transparent huge pages only to memory that asks for them
/// (`madvise`, Debian's and Ubuntu's default), starts the binary again with glibc's malloc
/// asking: a cook's memory is then faulted in 2 MiB at a time rather than 4 KiB. A
/// catalog-sized edit took 5,000 page faults and now takes 800, and 46 ms became 40 (medians
/// of 21 interleaved edits). The tunable is read once, as the process starts, so it can only
/// be given by starting again; it is then taken out of the environment, and what the cook
/// starts (Blender) gets the environment the user gave. A `GLIBC_TUNABLES` of the user's own
/// is left as it is.
fn with_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    match std::env::var_os("GLIBC_TUNABLES") {
        // SAFETY: no other thread has started yet.
        Some(ours) if ours == HUGE_PAGES => unsafe { std::env::remove_var("GLIBC_TUNABLES") },
        Some(_) => {}
        None if huge_pages_on_request() => {
            use std::os::unix::process::CommandExt;
            let mut args = std::env::args_os();
            let name = args.next().unwrap_or_default();
            // Returns only when it fails, and the cook goes on as it is.
            let _ = std::process::Command::new("/proc/self/exe")
                .arg0(name)
                .args(args)
                .env("GLIBC_TUNABLES", HUGE_PAGES)
                .exec();
        }
        None => {}
    }
}

/// Whether transparent huge pages are given to memory that asks for them, and only to it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn huge_pages_on_request() -> bool {
    mjolnir_files::bounded::read_text(
        std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled"),
        4096,
    )
    .is_ok_and(|mode| mode.contains("[madvise]"))
}

/// The first Ctrl-C asks a cook to stop starting steps (it finishes those running and
/// keeps the cache consistent); a second one ends the process at once.
#[cfg(unix)]
extern "C" fn on_interrupt(_: libc::c_int) {
    cook::CANCELLED.store(true, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: signal() is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}
