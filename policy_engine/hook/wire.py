"""The daemon's wire format: a request and its reply over the unix socket, and the proof that the
reply comes from our daemon (an HMAC under the key in the state directory).

Both sides use it: the hook client (``hook/client.py``), which imports as little as it can (no
``typing``, ``socket``, ``json`` nor ``hmac``: see there), and the daemon (``hook/daemon.py``).
Fields are separated by NUL bytes, which neither environment values, agents' JSON payloads nor
our answers contain. Standard library alone, and of the package only the state directory.
"""

import os

TYPE_CHECKING = False  # not typing's (see hook/client.py); type checkers treat the name as True
if TYPE_CHECKING:
    from _hashlib import HASH
    from collections.abc import Callable, Mapping

# Environment the daemon judges with: where files are found and how the engine is set up. Sent
# with every request, so one daemon serves every caller of its state directory correctly.
FORWARDED_PREFIXES = ("POLICY_ENGINE_", "XDG_")
FORWARDED = ("HOME", "PI_CODING_AGENT_DIR", "PATH", "TMPDIR", "SSH_AUTH_SOCK")
# Variables named like credentials go by name only, their values left behind: a sandbox does not
# pass them in (sandbox/plan.py), and the daemon needs no secret to know that. The words of the
# command knowledge's "secretVariables" (`*KEY*` …), which this module cannot load: a test keeps
# the two the same.
SECRET_WORDS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "AUTH")
MAGIC = "policy-engine/2"  # /1 had no proof of the daemon: its daemons are refused
NUL = "\0"
# Strings cross the socket as UTF-8 with their surrogates as they are ("surrogatepass"): an
# undecodable byte of an environment value (os.environ's surrogate escapes) and a lone surrogate
# a payload wrote as a JSON escape ("\ud800") come back unchanged, and encoding never fails.
CODEC = "surrogatepass"
# Seconds the hook may take (POLICY_ENGINE_HOOK_TIMEOUT): the default, and the most it may be set
# to (any positive time below it is taken: a tiny one makes every call time out, which blocks).
TIMEOUT, LONGEST = 20.0, 600.0
KEY_BYTES = 32  # the daemon's secret: as long as the HMAC-SHA256 it keys


class Reply:
    """What the hook prints and how it exits (the daemon's answer)."""

    def __init__(self, stdout: str, stderr: str, status: int) -> None:
        self.stdout, self.stderr, self.status = stdout, stderr, status


def forwarded_env(env: "Mapping[str, str]") -> dict[str, str]:
    forwarded = {k: v for k, v in env.items() if k in FORWARDED or k.startswith(FORWARDED_PREFIXES)}
    for name in env:
        if name not in forwarded and secret_name(name):
            forwarded[name] = ""
    return forwarded


def secret_name(name: str) -> bool:
    """Whether a variable is named like a credential (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY)."""
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def encode_request(
    version: str, nonce: str, agent: str, payload: str, env: "Mapping[str, str]"
) -> bytes | None:
    """The request's bytes, or None when a field holds a NUL (the call is then judged in-process).
    ``nonce`` is fresh for every request (hex digits): the daemon's proof covers it."""
    fields = [MAGIC, version, nonce, agent, payload]
    for key, value in forwarded_env(env).items():
        fields += [key, value]
    if any(NUL in field for field in fields):
        return None
    return NUL.join(fields).encode("utf-8", CODEC)


def decode_request(raw: bytes) -> tuple[str, str, str, dict[str, str]]:
    """(version, agent, payload, env) of a request; ValueError (UnicodeDecodeError among them) when
    it is not one."""
    fields = raw.decode("utf-8", CODEC).split(NUL)
    if len(fields) < 5 or fields[0] != MAGIC or not len(fields) % 2:
        raise ValueError("not a policy-engine request")
    env = dict(zip(fields[5::2], fields[6::2], strict=True))
    return fields[1], fields[3], fields[4], env


def encode_reply(request: bytes, key: bytes, version: str, status: int, stdout: str, stderr: str) -> bytes:
    """The daemon's reply to ``request``, signed under ``key`` (see ``proof``). Never raises."""
    import hmac  # the daemon's side: the standard one, which the client's own HMAC is checked against

    fields = [MAGIC, version, str(status), stdout.replace(NUL, ""), stderr.replace(NUL, "")]
    body = NUL.join(fields).encode("utf-8", CODEC)
    signed = hmac.new(key, _digest(request) + body, "sha256").hexdigest()
    return body + NUL.encode() + signed.encode()


def decode_reply(raw: bytes, version: str, request: bytes, key: bytes) -> Reply | None:
    """The reply to ``request``, or None when it is not one of this version's or not signed under
    ``key`` (the caller then judges itself)."""
    from _operator import _compare_digest  # hmac.compare_digest, without loading hmac

    body, _, signed = raw.rpartition(NUL.encode())
    if not _compare_digest(signed, proof(key, request, body).encode()):
        return None
    fields = body.decode("utf-8", CODEC).split(NUL)
    if len(fields) != 5 or fields[0] != MAGIC or fields[1] != version or not fields[2].isdigit():
        return None
    return Reply(fields[3], fields[4], int(fields[2]))


def proof(key: bytes, request: bytes, body: bytes) -> str:
    """HMAC-SHA256 under ``key`` of the request's digest (which holds its nonce) and the reply's
    ``body``, in hex: what only a holder of the key can give for this request and this reply."""
    return _hmac_sha256(key, _digest(request) + body).hex()


def _digest(data: bytes) -> bytes:
    return _sha256()(data).digest()


def _hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA256 (RFC 2104) over the interpreter's own SHA-256: ``hmac`` would load OpenSSL's
    ``_hashlib`` (~2.5 ms) where ``_sha256`` costs ~0.3 ms. The daemon signs with ``hmac``, so
    every answer from it checks this against the standard one."""
    sha256 = _sha256()
    block = (sha256(key).digest() if len(key) > 64 else key).ljust(64, b"\0")
    inner = sha256(bytes(byte ^ 0x36 for byte in block) + message).digest()
    return sha256(bytes(byte ^ 0x5C for byte in block) + inner).digest()


def _sha256() -> "Callable[[bytes], HASH]":
    """The SHA-256 constructor, from the cheapest module that has it."""
    if TYPE_CHECKING:
        from hashlib import sha256
    else:
        try:
            from _sha256 import sha256  # Python 3.11
        except ImportError:
            try:
                from _sha2 import sha256  # Python 3.12 and later
            except ImportError:  # an interpreter without them: hashlib has one, if slower to load
                from hashlib import sha256
    return sha256


def read_key(env: "Mapping[str, str]") -> bytes | str:
    """The daemon's secret, or why it cannot be used (a phrase): missing, not the user's alone
    (a key others could read proves nothing), or too short."""
    from policy_engine.session.statedir import key_path, not_ours_alone

    path = key_path(env)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as error:
        return f"the daemon's key {path} cannot be read ({error.strerror})"
    try:
        problem = not_ours_alone("the daemon's key", path, os.fstat(descriptor))
        key = os.read(descriptor, 4096) if problem is None else b""
    except OSError as error:
        return f"the daemon's key {path} cannot be read ({error.strerror})"
    finally:
        os.close(descriptor)
    if problem is not None:
        return problem
    return key if len(key) >= KEY_BYTES else f"the daemon's key {path} is too short ({len(key)} bytes)"


def hook_timeout(env: "Mapping[str, str]") -> tuple[float, str | None]:
    """The seconds one hook call may take (``POLICY_ENGINE_HOOK_TIMEOUT``, unset or empty for the
    default), and what is wrong with the variable when it holds anything but a number of seconds
    in range (nan, inf, 0, a word): then the default applies, never "no limit" nor "no time"."""
    text = env.get("POLICY_ENGINE_HOOK_TIMEOUT", "")
    if not text:
        return TIMEOUT, None
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if 0 < seconds <= LONGEST:  # false for nan
        return seconds, None
    problem = f"POLICY_ENGINE_HOOK_TIMEOUT={text} is not a number of seconds (above 0, at most {LONGEST:g})"
    return TIMEOUT, f"{problem}; using {TIMEOUT:g}"
