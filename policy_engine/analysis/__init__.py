"""Analysis: a tool call -> the atoms the policy judges (tool calls, shell lines, inline programs)."""
