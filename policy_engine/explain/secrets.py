"""Secrets in command text, masked before the text leaves the engine in a reason.

A command can carry a secret (``curl -H "Authorization: Bearer …"``, ``OPENAI_API_KEY=sk-… app``);
the reason goes back to the model and into logs, so the secret's value is replaced by ``***``.
The patterns are data: what a secret's name, option, header or shape looks like.
"""

import re
from functools import lru_cache

MASK = "***"

# Every pattern below needs one of these in the (lower-cased) text: a text without any cannot
# hold a secret they find, and is returned as it is without compiling them (a hook's start-up).
_TRIGGERS = (
    "-----begin",
    ":",
    "=",
    "token",
    "passw",
    "secret",
    "api",
    "sk-",
    "gh",
    "xox",
    "akia",
    "aiza",
    "glpat-",
    "eyj",
)


@lru_cache(maxsize=1)
def _patterns() -> list[re.Pattern[str]]:
    """The patterns, compiled when first needed. Each keeps its group "keep" and masks "secret"."""
    return [
        # -----BEGIN … PRIVATE KEY----- blocks
        re.compile(r"(?P<keep>-----BEGIN [A-Z ]*PRIVATE KEY-----)(?P<secret>.*?)(?=-----END|$)", re.DOTALL),
        # Authorization: Bearer xxx, x-api-key: xxx
        re.compile(
            r"(?P<keep>(?:authorization|proxy-authorization|x-api-key|api-key|x-auth-token|cookie)\s*:\s*"
            r"(?:bearer\s+|basic\s+|token\s+|digest\s+)?)(?P<secret>[^\s\"']+)",
            re.IGNORECASE,
        ),
        # NAME=value and --name=value where the name says it holds a secret (not sort's --key=2); the
        # lookbehind starts a match only at the start of a word, which keeps long words linear
        re.compile(
            r"(?P<keep>(?<![\w.-])(?!-*key=)[\w.-]*(?:key|token|secret|passw(?:or)?d|passwd|credential|auth)"
            r"[\w.-]*=[\"']?)"
            r"(?P<secret>[^\s\"'&;|]+)",
            re.IGNORECASE,
        ),
        # --password value, --token value (a short -p is too ambiguous to mask)
        re.compile(
            r"(?P<keep>(?<![\w-])--?(?:api[-_]?key|access[-_]?token|auth[-_]?token|token|password|passwd|secret|"
            r"client[-_]?secret)\s+[\"']?)(?P<secret>[^\s\"']+)",
            re.IGNORECASE,
        ),
        # curl -u user:password, https://user:password@host
        re.compile(r"(?P<keep>(?:-u|--user)\s+[\"']?[^\s:\"']+:)(?P<secret>[^\s\"']+)"),
        re.compile(r"(?P<keep>://[^/\s:@]+:)(?P<secret>[^@\s/]+)(?=@)"),
        # Well-known token shapes
        re.compile(
            r"(?P<keep>)(?P<secret>\b(?:sk-[\w-]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}|"
            r"xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{35}|glpat-[\w-]{20,}|"
            r"eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}))"
        ),
    ]


def mask(text: str) -> str:
    """``text`` with every secret value it shows replaced by ``***``."""
    lowered = text.lower()
    if not any(trigger in lowered for trigger in _TRIGGERS):
        return text
    return mask_all(text)


def mask_all(text: str) -> str:
    """``mask`` without the check that skips texts that cannot hold a secret (for tests)."""
    for pattern in _patterns():
        text = pattern.sub(lambda m: m.group("keep") + MASK, text)
    return text
