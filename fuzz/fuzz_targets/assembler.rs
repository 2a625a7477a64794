//! The tool-call assembler on arbitrary delta sequences: no panic, deterministic, and the calls
//! it hands out keep its promises (unique ids, also the loop's, given ids kept, arguments an
//! object or an error);
//! the page's view of the same deltas (`ToolInputTracker`) starts each named call once, under
//! the id the loop gives it (in the order they are named, which need not be the calls' order),
//! and where the arguments came as text only, a call's pieces joined are that text.
#![no_main]

use std::collections::HashSet;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::assembler::{
    AssembledToolCall, ToolCallAssembler, ToolInput, ToolInputTracker,
};
use mcp_agent_wasm::core::model_event::{ArgumentsDelta, ToolCallDelta};
use mcp_agent_wasm_fuzz::arbitrary_input::DeltaInput;

/// The round's calls, and the ids the loop gives them in round 2.
fn assemble(deltas: &[ToolCallDelta]) -> (Vec<AssembledToolCall>, Vec<String>) {
    let mut assembler = ToolCallAssembler::new(2);
    for delta in deltas {
        assembler.push(delta);
    }
    assert_eq!(assembler.has_calls(), !deltas.is_empty());
    let ids = assembler.call_ids();
    (assembler.finish(), ids)
}

#[derive(Debug, Arbitrary)]
struct Round {
    deltas: Vec<DeltaInput>,
}

fuzz_target!(|round: Round| {
    let deltas: Vec<ToolCallDelta> = round.deltas.iter().map(DeltaInput::to_delta).collect();
    let assembled = assemble(&deltas);
    assert_eq!(
        assembled,
        assemble(&deltas),
        "the same deltas gave other calls"
    );
    let (calls, ids) = assembled;
    let unique_ids: HashSet<&String> = ids.iter().collect();
    assert_eq!(
        unique_ids.len(),
        ids.len(),
        "the loop's ids {ids:?} are not unique"
    );
    assert!(calls.len() <= deltas.len());
    assert_eq!(calls.is_empty(), deltas.is_empty());

    let given_ids: HashSet<&str> = deltas
        .iter()
        .filter_map(|delta| delta.id.as_deref())
        .collect();
    let mut seen_ids = HashSet::new();
    for call in &calls {
        assert!(!call.id.is_empty(), "a call without an id");
        assert!(
            seen_ids.insert(call.id.as_str()),
            "the id {:?} is used twice",
            call.id
        );
        if !call.id_synthesized {
            assert!(
                given_ids.contains(call.id.as_str()),
                "an id nobody sent: {:?}",
                call.id
            );
        }
        if let Ok(arguments) = &call.arguments {
            assert!(
                arguments.is_object(),
                "arguments that are not an object: {arguments}"
            );
        }
    }
    let mut tracker = ToolInputTracker::new(2);
    let mut started = Vec::new();
    let mut shown_texts: Vec<(String, String)> = Vec::new();
    for delta in &deltas {
        for shown in tracker.push(delta) {
            match shown {
                ToolInput::Start { id, .. } => {
                    started.push(id.clone());
                    shown_texts.push((id, String::new()));
                }
                ToolInput::Delta { id, text } => {
                    let call = shown_texts.iter_mut().find(|call| call.0 == id);
                    call.expect("a piece before its call's start")
                        .1
                        .push_str(&text);
                }
            }
        }
    }
    let mut loop_ids = Vec::new();
    for (call, id) in calls.iter().zip(&ids) {
        if !call.name.is_empty() {
            loop_ids.push(id.clone());
        }
    }
    let only_text = deltas
        .iter()
        .all(|delta| !matches!(delta.arguments, Some(ArgumentsDelta::Whole(_))));
    if only_text {
        for (id, call) in loop_ids
            .iter()
            .zip(calls.iter().filter(|call| !call.name.is_empty()))
        {
            let shown = shown_texts.iter().find(|shown| shown.0 == *id);
            let shown = shown.map_or("", |shown| shown.1.as_str());
            let as_received = shown == call.raw_arguments
                || (call.raw_arguments == "{}" && matches!(shown.trim(), "" | "null"));
            assert!(
                as_received,
                "{id} shown as {shown:?}, received {:?}",
                call.raw_arguments
            );
        }
    }
    started.sort_unstable();
    let mut discarded: Vec<String> = tracker.into_shown_ids().collect();
    discarded.sort_unstable();
    assert_eq!(
        discarded, started,
        "a cut answer would discard other calls than it showed"
    );
    loop_ids.sort_unstable();
    assert_eq!(started, loop_ids, "the page's calls are not the loop's");

    let any_truncated = deltas
        .iter()
        .any(|delta| matches!(delta.arguments, Some(ArgumentsDelta::Truncated)));
    if any_truncated {
        assert!(
            calls.iter().any(|call| call.arguments.is_err()),
            "a truncated call would run"
        );
    }
});
