//! Waiting in JS time: timers and abort signals as futures that clean up when dropped.
//!
//! A wait that loses a race (a call that answered before its timeout, a retry cut short by an
//! abort) is dropped; dropping clears its `setTimeout` and removes its `abort` listener, so an
//! abandoned wait never keeps Node's event loop alive nor piles listeners on a signal. An abort
//! wait also settles its promise: `JsFuture` frees its two callbacks only when its promise
//! settles, so each wait left pending would keep them, and two JS functions, for the page's
//! lifetime. `setTimeout`/`clearTimeout` are bound as globals: pages, workers and Node alike.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::JsCallback;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, milliseconds: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// Resolves after a delay; the timer is cleared when this is dropped first.
///
/// The timer calls one Rust closure that wakes the waiting task: a promise awaited through
/// `JsFuture` would cost a promise, two more closures and a promise job, and when dropped a
/// call to settle it; every model call waits on such a timer (its idle limit), so that was a
/// tenth of a short run's CPU in Node.
pub struct Sleep {
    state: Rc<SleepState>,
    timer: JsValue,
    /// Called by the timer; dropped (after the timer is cleared) with this.
    _on_fire: JsCallback,
}

#[derive(Default)]
struct SleepState {
    fired: Cell<bool>,
    waker: Cell<Option<Waker>>,
}

/// Waits `milliseconds`, at most 2^31 − 1 (about 24.8 days): `setTimeout` reads its delay as a
/// 32-bit integer, so a longer one (`Number.MAX_SAFE_INTEGER` for "never") wrapped around and
/// fired at once or early.
pub fn sleep(milliseconds: u64) -> Sleep {
    let state = Rc::new(SleepState::default());
    let fired = state.clone();
    let on_fire = JsCallback::new(move |_| {
        fired.fired.set(true);
        if let Some(waker) = fired.waker.take() {
            waker.wake();
        }
        Ok(JsValue::UNDEFINED)
    });
    let timer = set_timeout(
        on_fire.as_ref().unchecked_ref(),
        milliseconds.min(i32::MAX as u64) as f64,
    );
    Sleep {
        state,
        timer,
        _on_fire: on_fire,
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        if self.state.fired.get() {
            return Poll::Ready(());
        }
        self.state.waker.set(Some(context.waker().clone()));
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        clear_timeout(&self.timer);
    }
}

/// Resolves a wait's promise (again, if it already was: that does nothing).
fn settle(resolve: &Function) {
    let _ = resolve.call0(&JsValue::UNDEFINED);
}

/// Resolves once a signal is aborted (at once if it already is); its listener is removed when
/// this is dropped.
pub struct Aborted {
    fired: JsFuture,
    signal: AbortSignal,
    /// The promise's `resolve`, also the `abort` listener.
    listener: Function,
}

pub fn aborted(signal: &AbortSignal) -> Aborted {
    // Replaced by the executor, which a promise calls at once.
    let mut listener: Function = JsValue::UNDEFINED.unchecked_into();
    let promise = Promise::new(&mut |resolve, _reject| {
        if signal.aborted() {
            settle(&resolve);
        } else {
            // A listener rather than `onabort`, which would replace the caller's own handler.
            let _ = signal.add_event_listener_with_callback("abort", &resolve);
        }
        listener = resolve;
    });
    Aborted {
        fired: JsFuture::from(promise),
        signal: signal.clone(),
        listener,
    }
}

impl Future for Aborted {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.fired).poll(context).map(drop)
    }
}

impl Drop for Aborted {
    fn drop(&mut self) {
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", &self.listener);
        settle(&self.listener);
    }
}

/// Waits `milliseconds` unless `signal` aborts first; `false` when it did.
pub async fn sleep_unless_aborted(milliseconds: u64, signal: Option<&AbortSignal>) -> bool {
    let Some(signal) = signal else {
        sleep(milliseconds).await;
        return true;
    };
    if signal.aborted() {
        return false;
    }
    let wait = futures::future::select(sleep(milliseconds), aborted(signal)).await;
    matches!(wait, futures::future::Either::Left(_))
}
