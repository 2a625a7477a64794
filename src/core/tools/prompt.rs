//! The system preamble that tells the model which tools it has and how to use them well.

/// The preamble for a run with these tools. `now_local` is the user's current date and time
/// (e.g. `2026-11-30 10:15`) in `time_zone` (e.g. `Europe/Paris`): the caller reads the clock,
/// the core does not. The caller puts it before its own system prompt, and may leave it out.
pub fn tool_prompt(function_names: &[&str], now_local: &str, time_zone: &str) -> String {
    let mut prompt = format!("Current date and time: {now_local} ({time_zone}).");
    // Four digits are four bytes: no collecting of characters (its code is in the wasm for it).
    let year = now_local.get(..4).unwrap_or_default();
    if year.len() == 4 && year.bytes().all(|byte| byte.is_ascii_digit()) {
        prompt.push_str(&format!(" The current year is {year}."));
    }
    prompt.push('\n');
    if function_names.is_empty() {
        prompt.push_str("No tools are available in this conversation.\n");
        return prompt;
    }
    prompt.push_str(&format!(
        "\nYou can call these tools: {}.\n",
        crate::core::text::join(function_names, ", ")
    ));
    prompt.push_str(
        "- Answer directly, without a tool, when you can: writing, translation, maths, code and \
         general knowledge need none.\n\
         - When several tool calls do not depend on each other, make them all in the same turn.\n\
         - For search tools, use short keyword queries, and add the current year when the answer \
         depends on recent events.\n\
         - Base your answer on the tool results and cite them (the tool, and the source or link \
         it returned).\n\
         - Never invent a tool's result. If a tool fails or returns nothing useful, say so.\n",
    );
    prompt
}
