"""Configuration errors: every problem names its file, line, column, key path, what is wrong and a hint."""

from __future__ import annotations

from .record import Record


class Problem(Record):
    """One thing wrong with a policy file."""

    file: str | None
    line: int | None
    column: int | None
    key: str
    message: str
    hint: str | None = None

    def __str__(self) -> str:
        place = self.file or "<config>"
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        text = f"{place}: {self.key}: {self.message}" if self.key else f"{place}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


class ConfigError(Exception):
    """A policy file could not be loaded. ``problems`` lists everything found, in file order."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]) -> None:
        self.problems = tuple(problems)
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.problems)
        head = "invalid policy configuration" + (f" ({count} problems)" if count > 1 else "")
        return head + ":\n" + "\n".join(f"  {p}" for p in self.problems)


class ApprovalError(Exception):
    """An approval that cannot be made or removed, with what to do instead."""
