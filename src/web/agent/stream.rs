//! `run()`'s return value: a `ReadableStream` of events that is also async-iterable everywhere,
//! and whose cancellation (a `break` out of `for await`) aborts the run.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortSignal, QueuingStrategy, ReadableStream, ReadableStreamDefaultController,
    ReadableStreamDefaultReader,
};

use super::driver::{drive, Emitted, Input, RunEnd};
use super::AgentShared;
use crate::core::message::ChatMessage;
use crate::web::channel::{channel, Received, Receiver};
use crate::web::{promise_of, spawn, JsCallback};

/// The receiving end of a run's events; taken out while a pull awaits it (a stream never pulls
/// twice at once).
type Events = Rc<RefCell<Option<EventSource>>>;

struct EventSource {
    receiver: Receiver<Emitted>,
    /// A failure met while draining: erroring the stream at once would drop the events queued
    /// before it, so it waits for the next pull.
    failure: Option<JsValue>,
}

impl EventSource {
    /// Enqueues every event already waiting, without yielding: one pull per burst of events
    /// rather than one per event. Closes the stream at the end of the run. `false` when nothing
    /// was waiting. A failure behind events enqueued by this pull (`delivered` says whether the
    /// pull already enqueued one) waits for the pull their reading brings; with nothing enqueued
    /// no pull would come, so it errors the stream now (`Err`).
    fn drain_ready(
        &mut self,
        controller: &ReadableStreamDefaultController,
        mut delivered: bool,
    ) -> Result<bool, JsValue> {
        loop {
            match self.receiver.try_recv() {
                Received::Item(item) => match item.into_js() {
                    Ok(event) => controller.enqueue_with_chunk(&event)?,
                    Err(error) if delivered => {
                        self.failure = Some(error);
                        return Ok(true);
                    }
                    Err(error) => return Err(error),
                },
                Received::Ended => {
                    controller.close()?;
                    return Ok(true);
                }
                Received::Empty => return Ok(delivered),
            }
            delivered = true;
        }
    }
}

/// A `ReadableStream` of the run's events that calls `cancel` when its reader cancels. It gets
/// a `Symbol.asyncIterator` of its own where the runtime's streams lack one (Safari): an
/// iterator over a reader, whose `return()` (a `break`) cancels the stream as the native one does.
///
/// A pull enqueues the events already waiting at once and returns; only when none are waiting
/// does it return a promise that resolves with the next one.
fn event_stream(events: Events, cancel: JsValue) -> Result<ReadableStream, JsValue> {
    let pull = JsCallback::new(move |controller: JsValue| {
        let controller: ReadableStreamDefaultController = controller.unchecked_into();
        {
            let mut source = events.borrow_mut();
            let Some(source) = source.as_mut() else {
                return Ok(JsValue::UNDEFINED);
            };
            if let Some(error) = source.failure.take() {
                return Err(error);
            }
            if source.drain_ready(&controller, false)? {
                return Ok(JsValue::UNDEFINED);
            }
        }
        let events = events.clone();
        Ok(promise_of(async move {
            let Some(mut source) = events.borrow_mut().take() else {
                return Ok(JsValue::UNDEFINED);
            };
            let next = (&mut source.receiver).await;
            let delivered = match next.map(Emitted::into_js) {
                Some(Ok(event)) => controller
                    .enqueue_with_chunk(&event)
                    .and_then(|()| source.drain_ready(&controller, true).map(drop)),
                Some(Err(error)) => Err(error),
                None => controller.close(),
            };
            *events.borrow_mut() = Some(source);
            delivered.map(|()| JsValue::UNDEFINED)
        })
        .into())
    });
    let source = Object::new();
    Reflect::set(&source, &"pull".into(), &pull.into_js_value())?;
    Reflect::set(&source, &"cancel".into(), &cancel)?;
    let strategy = QueuingStrategy::new();
    strategy.set_high_water_mark(0.0);
    let stream = ReadableStream::new_with_underlying_source_and_strategy(&source, &strategy)?;
    let iterator_key = js_sys::Symbol::async_iterator();
    if !Reflect::has(&stream, &iterator_key)? {
        Reflect::set(&stream, &iterator_key, &reader_iterator(stream.clone()))?;
    }
    Ok(stream)
}

/// `stream[Symbol.asyncIterator]` for runtimes without it: `reader.read()` already resolves to
/// `{ done, value }`, the iterator protocol's own shape.
fn reader_iterator(stream: ReadableStream) -> JsValue {
    JsCallback::new(move |_| {
        let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
        let read_from = reader.clone();
        let next = JsCallback::new(move |_| Ok(read_from.read().into()));
        let finish = JsCallback::new(move |_| {
            let reader = reader.clone();
            Ok(promise_of(async move {
                JsFuture::from(reader.cancel()).await?;
                let done = Object::new();
                Reflect::set(&done, &"done".into(), &JsValue::TRUE)?;
                Ok(done.into())
            })
            .into())
        });
        let iterator = Object::new();
        let _ = Reflect::set(&iterator, &"next".into(), &next.into_js_value());
        let _ = Reflect::set(&iterator, &"return".into(), &finish.into_js_value());
        Ok(iterator.into())
    })
    .into_js_value()
}

/// Starts a run in the background and returns the stream its events arrive on.
pub fn start_run(
    shared: Rc<AgentShared>,
    messages: Vec<ChatMessage>,
    signal: Option<AbortSignal>,
) -> Result<ReadableStream, JsValue> {
    let (events, receiver) = channel::<Emitted>();
    let (inputs, input_receiver) = channel::<Input>();
    shared.track_run(inputs.clone());
    let cancel_inputs = inputs.clone();
    let cancel = JsCallback::new(move |_| {
        cancel_inputs.send(Input::Abort);
        Ok(JsValue::UNDEFINED)
    });
    // Handed to JS: the closures live as long as the stream does, also after the run has ended.
    let source = EventSource {
        receiver,
        failure: None,
    };
    let stream = event_stream(Rc::new(RefCell::new(Some(source))), cancel.into_js_value())?;
    spawn(async move {
        let end = drive(shared, messages, signal, inputs, input_receiver, &events).await;
        if let RunEnd::Failed(error) = end {
            events.send(Emitted::Failed(error));
        }
    });
    Ok(stream)
}
