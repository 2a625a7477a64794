//! Work of the client's that callers arriving meanwhile share: a connection attempt, a tool
//! listing, the wait for `close`. Every handle awaits the same outcome; the work is dropped
//! (cancelled) with the last handle, so that weak handles can say whether anyone still waits.
//!
//! futures' `Shared` is built for threads (atomics, a mutex, a waker of its own that wakes
//! every handle); the page has one thread, so the handle that polls the work last is the one
//! it wakes, and a handle that goes away wakes the others so that one of them polls it next.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use futures::future::LocalBoxFuture;

use crate::core::mcp::McpError;

/// The work shared, as it is started.
pub type Attempt = LocalBoxFuture<'static, Result<(), McpError>>;

struct Work {
    /// `None` while a handle polls it, and once it has ended.
    future: Option<Attempt>,
    outcome: Option<Result<(), McpError>>,
    /// The handles waiting meanwhile, woken when the work ends or a handle goes away.
    waiting: Vec<Waker>,
}

/// One caller's handle on the work.
pub struct SharedAttempt(Rc<RefCell<Work>>);

/// A handle that does not keep the work going.
pub struct WeakAttempt(Weak<RefCell<Work>>);

impl SharedAttempt {
    pub fn new(future: Attempt) -> Self {
        SharedAttempt(Rc::new(RefCell::new(Work {
            future: Some(future),
            outcome: None,
            waiting: Vec::new(),
        })))
    }

    pub fn downgrade(&self) -> WeakAttempt {
        WeakAttempt(Rc::downgrade(&self.0))
    }

    pub fn ptr_eq(&self, other: &SharedAttempt) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl WeakAttempt {
    /// A handle on the work, unless every caller has gone away.
    pub fn upgrade(&self) -> Option<SharedAttempt> {
        self.0.upgrade().map(SharedAttempt)
    }
}

impl Clone for SharedAttempt {
    fn clone(&self) -> Self {
        SharedAttempt(Rc::clone(&self.0))
    }
}

/// Wakes every waiting handle, outside the borrow.
fn wake_waiting(work: &RefCell<Work>) {
    let waiting = std::mem::take(&mut work.borrow_mut().waiting);
    for waker in waiting {
        waker.wake();
    }
}

impl Future for SharedAttempt {
    type Output = Result<(), McpError>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let taken = {
            let mut work = self.0.borrow_mut();
            if let Some(outcome) = &work.outcome {
                return Poll::Ready(outcome.clone());
            }
            work.future.take()
        };
        let polled = taken.map(|mut future| (future.as_mut().poll(context), future));
        let mut work = self.0.borrow_mut();
        match polled {
            Some((Poll::Ready(outcome), future)) => {
                work.outcome = Some(outcome.clone());
                drop(work);
                // Dropped outside the borrow: the work's own guards may look at the handles.
                drop(future);
                wake_waiting(&self.0);
                Poll::Ready(outcome)
            }
            pending => {
                if let Some((_, future)) = pending {
                    work.future = Some(future);
                }
                if !work
                    .waiting
                    .iter()
                    .any(|waiting| waiting.will_wake(context.waker()))
                {
                    work.waiting.push(context.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for SharedAttempt {
    /// The work may hold this handle's waker as the one to wake: the others poll it next.
    fn drop(&mut self) {
        if Rc::strong_count(&self.0) > 1 {
            wake_waiting(&self.0);
        }
    }
}
