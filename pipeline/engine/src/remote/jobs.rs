//! The remote cache's background work: uploads of cooked steps and downloads of blobs a
//! set will need, done by worker threads while the cook goes on.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

use super::{HitOutput, RemoteCache, SharedFiles};
use crate::store::Store;

pub enum Job {
    /// A cooked step's outputs, to upload under its key.
    Upload(String, SharedFiles),
    /// A hit's output that a set folder will hold, to download into the store before the
    /// folder is written.
    Download(HitOutput),
}

/// Jobs waiting for a worker.
#[derive(Default)]
pub struct Jobs {
    queue: Mutex<Queue>,
    waiting: Condvar,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// No more will come: the workers finish the queue and stop.
    closed: bool,
}

impl Jobs {
    pub fn push(&self, job: Job) {
        let mut queue = self.queue.lock().expect("the job queue is not poisoned");
        queue.jobs.push_back(job);
        self.waiting.notify_one();
    }

    /// The next job, waiting for one; `None` once the queue is closed and empty.
    pub fn next(&self) -> Option<Job> {
        let mut queue = self.queue.lock().expect("the job queue is not poisoned");
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                return Some(job);
            }
            if queue.closed {
                return None;
            }
            queue = self
                .waiting
                .wait(queue)
                .expect("the job queue is not poisoned");
        }
    }

    /// Jobs may be queued again (a cook runs its graph in stages, each with its own
    /// workers).
    pub fn open(&self) {
        self.queue
            .lock()
            .expect("the job queue is not poisoned")
            .closed = false;
    }

    /// Nothing more will be queued: the workers finish what is and stop.
    pub fn close(&self) {
        self.queue
            .lock()
            .expect("the job queue is not poisoned")
            .closed = true;
        self.waiting.notify_all();
    }
}

impl RemoteCache {
    /// Queues a cooked step's upload for the background workers, so that the step (and
    /// what waits on it) does not wait on the network. A machine that never uploads
    /// queues nothing.
    pub fn upload_in_background(&self, key: &str, outputs: SharedFiles) {
        if !self.writes() || self.is_down() {
            return;
        }
        self.jobs.push(Job::Upload(key.to_string(), outputs));
    }

    /// Queues the download of a hit's output that a set folder will hold, when the
    /// bundle's writer found it in one: it then arrives while the cook goes on, not when
    /// the folder is written.
    pub fn download_in_background(&self, output: &HitOutput) {
        let lands = self
            .landing
            .lock()
            .expect("landing lock")
            .contains(&output.blake3);
        if lands && !self.is_down() {
            self.jobs.push(Job::Download(output.clone()));
        }
    }

    /// How many background workers this cook wants: one per request that may be in
    /// flight on a machine that uploads; on one that only reads, one per download the
    /// bundle named, up to that (threads cost more than they save when idle).
    pub fn background_workers(&self) -> usize {
        match self.writes() {
            true => self.connections,
            false => self
                .connections
                .min(self.landing.lock().expect("landing lock").len()),
        }
    }

    /// One background worker: does what is queued until [`close_jobs`] is called and the
    /// queue is empty.
    ///
    /// [`close_jobs`]: RemoteCache::close_jobs
    pub fn run_jobs(&self, store: &Store) {
        while let Some(job) = self.jobs.next() {
            match job {
                Job::Upload(key, files) => self.upload(&key, &files),
                // A failure is met again, and reported, when the output is read.
                Job::Download(output) => {
                    let _ = self.download(&output, store);
                }
            }
        }
    }

    /// Jobs may be queued again (a cook runs its graph in stages, each with its own
    /// workers).
    pub fn open_jobs(&self) {
        self.jobs.open();
    }

    /// Nothing more will be queued: the workers finish what is and stop.
    pub fn close_jobs(&self) {
        self.jobs.close();
    }
}
