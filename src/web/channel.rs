//! A single-threaded unbounded channel: a run's inputs and events, a request's messages routed
//! from a server stream, and stop notices (a `Receiver<()>` whose senders are dropped).
//!
//! futures' `mpsc` and `oneshot` are built for threads (atomics, a lock-free queue, `Arc`s)
//! and were compiled once per message type, about 1 KB of wasm each; the page has one thread,
//! so a `RefCell` around a `VecDeque` does.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Queue<T> {
    items: VecDeque<T>,
    /// The receiving task, while it waits.
    waker: Option<Waker>,
    senders: usize,
    receiver_alive: bool,
}

/// The sending end; clones share the channel, which ends for the receiver when the last is
/// dropped.
pub struct Sender<T>(Rc<RefCell<Queue<T>>>);

/// The receiving end: awaiting it (or `&mut` it) gives the next item, or `None` once every
/// sender is gone and nothing is left, which is how a stop notice arrives. Once it is dropped,
/// sends are dropped unread.
pub struct Receiver<T>(Rc<RefCell<Queue<T>>>);

/// A new channel's two ends.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let queue = Rc::new(RefCell::new(Queue {
        items: VecDeque::new(),
        waker: None,
        senders: 1,
        receiver_alive: true,
    }));
    (Sender(queue.clone()), Receiver(queue))
}

impl<T> Sender<T> {
    /// Queues `item` for the receiver; dropped if the receiver is gone.
    pub fn send(&self, item: T) {
        self.send_merging(item, |_, item| Some(item));
    }

    /// Queues `item` unless `merge` folds it into the items the receiver has not taken yet
    /// (`merge` gives the item back when it did not).
    pub fn send_merging(&self, item: T, merge: fn(&mut VecDeque<T>, T) -> Option<T>) {
        let waker = {
            let mut queue = self.0.borrow_mut();
            if !queue.receiver_alive {
                return;
            }
            let Some(item) = merge(&mut queue.items, item) else {
                return;
            };
            queue.items.push_back(item);
            queue.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether the receiver is gone.
    pub fn is_closed(&self) -> bool {
        !self.0.borrow().receiver_alive
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.0.borrow_mut().senders += 1;
        Sender(self.0.clone())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut queue = self.0.borrow_mut();
            queue.senders -= 1;
            if queue.senders > 0 {
                return;
            }
            queue.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// What [`Receiver::try_recv`] finds.
pub enum Received<T> {
    Item(T),
    /// Nothing queued; senders remain.
    Empty,
    /// Nothing queued, and every sender is gone.
    Ended,
}

impl<T> Receiver<T> {
    /// The next item without waiting.
    pub fn try_recv(&mut self) -> Received<T> {
        let mut queue = self.0.borrow_mut();
        match queue.items.pop_front() {
            Some(item) => Received::Item(item),
            None if queue.senders == 0 => Received::Ended,
            None => Received::Empty,
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<T>> {
        let receiver = self.get_mut();
        match receiver.try_recv() {
            Received::Item(item) => Poll::Ready(Some(item)),
            Received::Ended => Poll::Ready(None),
            Received::Empty => {
                receiver.0.borrow_mut().waker = Some(context.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let unread = {
            let mut queue = self.0.borrow_mut();
            queue.receiver_alive = false;
            std::mem::take(&mut queue.items)
        };
        drop(unread);
    }
}
