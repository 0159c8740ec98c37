//! The remote cache's background work: uploads of cooked steps and downloads of blobs a
//! set will need, done by worker threads while the cook goes on.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

use super::{HitOutput, SharedFiles};

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
