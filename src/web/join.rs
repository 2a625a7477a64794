//! Waiting for a few futures at once: one per MCP server when listing tools or closing.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;

/// A future and, once it finished, its output.
type Slot<F> = (Pin<Box<F>>, Option<<F as Future>::Output>);

/// Every future's output, in the given order. Each wake-up polls the futures not yet done, which
/// suits the handful of servers a page has; `futures::future::join_all` switches to a
/// `FuturesOrdered` above 30 futures, and that code alone costs the wasm more than this.
pub async fn join_every<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut slots: Vec<Slot<F>> = futures
        .into_iter()
        .map(|future| (Box::pin(future), None))
        .collect();
    poll_fn(|context| {
        let mut all_done = true;
        for (future, output) in slots.iter_mut().filter(|(_, output)| output.is_none()) {
            match future.as_mut().poll(context) {
                Poll::Ready(value) => *output = Some(value),
                Poll::Pending => all_done = false,
            }
        }
        if all_done {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    slots.into_iter().filter_map(|(_, output)| output).collect()
}
