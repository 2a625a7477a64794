//! `run()`'s return value: a `ReadableStream` of events that is also async-iterable everywhere,
//! and whose cancellation (a `break` out of `for await`) aborts the run.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::StreamExt;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::driver::{drive, Input, RunEnd};
use super::AgentShared;
use crate::core::message::ChatMessage;

#[wasm_bindgen(inline_js = r#"
export function eventStream(pull, cancel) {
  const stream = new ReadableStream(
    {
      async pull(controller) {
        const event = await pull();
        if (event === undefined) controller.close();
        else controller.enqueue(event);
      },
      cancel() {
        cancel();
      },
    },
    { highWaterMark: 0 },
  );
  if (!(Symbol.asyncIterator in stream)) {
    stream[Symbol.asyncIterator] = async function* () {
      const reader = stream.getReader();
      let finished = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) { finished = true; return; }
          yield value;
        }
      } finally {
        if (!finished) await reader.cancel();
        reader.releaseLock();
      }
    };
  }
  return stream;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = eventStream)]
    fn event_stream(pull: &JsValue, cancel: &JsValue) -> JsValue;
}

/// Starts a run in the background and returns the stream its events arrive on.
pub fn start_run(
    shared: Rc<AgentShared>,
    messages: Vec<ChatMessage>,
    signal: Option<AbortSignal>,
) -> JsValue {
    let (events, receiver) = mpsc::unbounded::<Result<JsValue, JsValue>>();
    let (inputs, input_receiver) = mpsc::unbounded::<Input>();
    let receiver = Rc::new(RefCell::new(Some(receiver)));

    let pull = Closure::<dyn FnMut() -> js_sys::Promise>::new(move || {
        let receiver = receiver.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            // The stream never pulls twice at once; the receiver is taken out while awaited.
            let Some(mut stream) = receiver.borrow_mut().take() else {
                return Ok(JsValue::UNDEFINED);
            };
            let next = stream.next().await;
            *receiver.borrow_mut() = Some(stream);
            next.unwrap_or(Ok(JsValue::UNDEFINED))
        })
    });
    let cancel_inputs = inputs.clone();
    let cancel = Closure::<dyn FnMut()>::new(move || {
        let _ = cancel_inputs.unbounded_send(Input::Abort);
    });
    // Handed to JS: they live as long as the stream does, also after the run has ended.
    let stream = event_stream(&pull.into_js_value(), &cancel.into_js_value());
    wasm_bindgen_futures::spawn_local(async move {
        let end = drive(shared, messages, signal, inputs, input_receiver, &events).await;
        if let RunEnd::Failed(error) = end {
            let _ = events.unbounded_send(Err(error));
        }
    });
    stream
}
