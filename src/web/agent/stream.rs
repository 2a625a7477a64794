//! `run()`'s return value: a `ReadableStream` of events that is also async-iterable everywhere,
//! and whose cancellation (a `break` out of `for await`) aborts the run.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::StreamExt;
use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{
    AbortSignal, QueuingStrategy, ReadableStream, ReadableStreamDefaultController,
    ReadableStreamDefaultReader,
};

use super::driver::{drive, Input, RunEnd};
use super::AgentShared;
use crate::core::message::ChatMessage;

/// The receiving end of a run's events; taken out while a pull awaits it (a stream never pulls
/// twice at once).
type Events = Rc<RefCell<Option<mpsc::UnboundedReceiver<Result<JsValue, JsValue>>>>>;

/// A `ReadableStream` of the run's events that calls `cancel` when its reader cancels. It gets
/// a `Symbol.asyncIterator` of its own where the runtime's streams lack one (Safari): an
/// iterator over a reader, whose `return()` (a `break`) cancels the stream as the native one does.
fn event_stream(events: Events, cancel: JsValue) -> Result<ReadableStream, JsValue> {
    let pull = Closure::<dyn FnMut(ReadableStreamDefaultController) -> Promise>::new(
        move |controller: ReadableStreamDefaultController| {
            let events = events.clone();
            future_to_promise(async move {
                let Some(mut receiver) = events.borrow_mut().take() else {
                    return Ok(JsValue::UNDEFINED);
                };
                let next = receiver.next().await;
                *events.borrow_mut() = Some(receiver);
                match next {
                    Some(Ok(event)) => controller.enqueue_with_chunk(&event)?,
                    Some(Err(error)) => return Err(error),
                    None => controller.close()?,
                }
                Ok(JsValue::UNDEFINED)
            })
        },
    );
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
    Closure::<dyn FnMut() -> JsValue>::new(move || {
        let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
        let read_from = reader.clone();
        let next = Closure::<dyn FnMut() -> Promise>::new(move || read_from.read());
        let finish = Closure::<dyn FnMut() -> Promise>::new(move || {
            let reader = reader.clone();
            future_to_promise(async move {
                JsFuture::from(reader.cancel()).await?;
                let done = Object::new();
                Reflect::set(&done, &"done".into(), &JsValue::TRUE)?;
                Ok(done.into())
            })
        });
        let iterator = Object::new();
        let _ = Reflect::set(&iterator, &"next".into(), &next.into_js_value());
        let _ = Reflect::set(&iterator, &"return".into(), &finish.into_js_value());
        iterator.into()
    })
    .into_js_value()
}

/// Starts a run in the background and returns the stream its events arrive on.
pub fn start_run(
    shared: Rc<AgentShared>,
    messages: Vec<ChatMessage>,
    signal: Option<AbortSignal>,
) -> Result<ReadableStream, JsValue> {
    let (events, receiver) = mpsc::unbounded::<Result<JsValue, JsValue>>();
    let (inputs, input_receiver) = mpsc::unbounded::<Input>();
    let cancel_inputs = inputs.clone();
    let cancel = Closure::<dyn FnMut()>::new(move || {
        let _ = cancel_inputs.unbounded_send(Input::Abort);
    });
    // Handed to JS: the closures live as long as the stream does, also after the run has ended.
    let stream = event_stream(
        Rc::new(RefCell::new(Some(receiver))),
        cancel.into_js_value(),
    )?;
    wasm_bindgen_futures::spawn_local(async move {
        let end = drive(shared, messages, signal, inputs, input_receiver, &events).await;
        if let RunEnd::Failed(error) = end {
            let _ = events.unbounded_send(Err(error));
        }
    });
    Ok(stream)
}
