"""The translation catalogs checked against the code: what Django's makemessages extracts from pit's
Python, templates and JavaScript must be in every catalog, translated and not fuzzy; and the strings
shown to people must be marked in the first place, which makemessages cannot see (a literal that is
not marked is not extracted). tests/core/test_translations.py runs both; docs/operations/languages.md
says how to fix what they find.

It reads pit/, templates/ and static/ of the checkout as files.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
CATALOG_LANGUAGES = ("zh_Hant", "zh_Hans")  # locale/<name>/LC_MESSAGES/, one per language but English
DOMAINS = ("django", "djangojs")
# The trees makemessages reads; tests and docs show nothing to staff.
SOURCES = ("pit", "templates", "static")
IGNORED = ("*/migrations/*", "pit/settings/*", "*/tests/*")


# ------------------------------------------------------------------------------------- .po files


@dataclass
class Entry:
    context: str | None
    msgid: str
    plural: str | None = None
    strings: list[str] = field(default_factory=list)  # msgstr, or msgstr[0..n]
    fuzzy: bool = False
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.context, self.msgid)

    @property
    def translated(self) -> bool:
        return bool(self.strings) and all(self.strings)


def _unquote(text: str) -> str:
    return ast.literal_eval(text) if text.startswith('"') else ""


def po_entries(text: str) -> list[Entry]:
    """The entries of a .po or .pot file (the header, msgid "", left out)."""
    entries: list[Entry] = []
    current: dict = {}
    last: str | None = None

    def flush() -> None:
        nonlocal current, last
        if "msgid" in current and current["msgid"]:
            strings = [current[k] for k in sorted(k for k in current if k.startswith("msgstr"))]
            entries.append(
                Entry(
                    context=current.get("msgctxt"),
                    msgid=current["msgid"],
                    plural=current.get("msgid_plural"),
                    strings=strings,
                    fuzzy=current.get("fuzzy", False),
                    obsolete=current.get("obsolete", False),
                )
            )
        current, last = {}, None

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#~"):
            current["obsolete"] = True
            continue
        if not line:
            flush()
            continue
        if line.startswith("#,"):
            if "msgid" in current:
                flush()
            current["fuzzy"] = "fuzzy" in line
            continue
        if line.startswith("#"):
            if "msgid" in current and "msgstr" in "".join(current):
                flush()
            continue
        if line.startswith('"'):
            if last is not None:
                current[last] += _unquote(line)
            continue
        keyword, _space, rest = line.partition(" ")
        if keyword == "msgctxt" and "msgid" in current:
            flush()
        if keyword == "msgid" and "msgid" in current:
            flush()
        current[keyword] = _unquote(rest)
        last = keyword
    flush()
    return entries


def catalog_path(language: str, domain: str) -> Path:
    return ROOT / "locale" / language / "LC_MESSAGES" / f"{domain}.po"


# ------------------------------------------------------------------------------- extraction


def extracted_messages() -> dict[str, list[Entry]]:
    """What `makemessages` extracts from a copy of pit's sources, per domain (the .pot's entries)."""
    from django.core.management import call_command
    from django.test import override_settings

    found: dict[str, list[Entry]] = {}
    with tempfile.TemporaryDirectory(prefix="pit-makemessages-") as scratch:
        copy = Path(scratch)
        for source in SOURCES:
            shutil.copytree(ROOT / source, copy / source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (copy / "locale").mkdir()
        here = os.getcwd()
        os.chdir(copy)
        try:
            with override_settings(LOCALE_PATHS=[copy / "locale"]):
                for domain in DOMAINS:
                    call_command(
                        "makemessages",
                        locale=["en"],
                        domain=domain,
                        keep_pot=True,
                        ignore_patterns=list(IGNORED),
                        no_obsolete=True,
                        verbosity=0,
                        **({"extensions": ["js"]} if domain == "djangojs" else {}),
                    )
                    pot = copy / "locale" / f"{domain}.pot"
                    found[domain] = po_entries(pot.read_text(encoding="utf-8")) if pot.exists() else []
        finally:
            os.chdir(here)
    return found


def msgfmt_check(path: Path) -> str:
    """`msgfmt --check` of a catalog: "" when it compiles cleanly, else gettext's complaint."""
    result = subprocess.run(
        ["msgfmt", "--check", "--output-file=/dev/null", str(path)], capture_output=True, text=True, check=False
    )
    return "" if result.returncode == 0 else (result.stderr or result.stdout).strip()


# ---------------------------------------------------------------------- unmarked Python strings

# Keyword arguments whose value people read.
USER_KEYWORDS = frozenset(
    {
        "verbose_name",
        "verbose_name_plural",
        "help_text",
        "label",
        "short_description",
        "description",
        "empty_label",
        "empty_value_display",
        "site_header",
        "site_title",
        "index_title",
    }
)
# Calls whose argument at that position (or keyword) people read: exceptions shown on a page, in
# the API or on a terminal, admin messages.
MESSAGE_CALLS = {
    "ValidationError": 0,
    "CommandError": 0,
    "PermissionDenied": 0,
    "Conflict": 0,
    "message_user": 1,
    "add_error": 1,
    "Http404": 0,
    "AuthenticationFailed": 0,
    "NotAuthenticated": 0,
    "ParseError": 0,
    "NotFound": 0,
    "Unprocessable": 0,
    "ConflictError": 0,
    "error_response": 2,
    "error_body": 2,
}
# Class attributes people read (an API exception's default message).
USER_CLASS_ATTRIBUTES = frozenset(
    {"default_detail", "title", "help", "submit_label"}
)  # title: a list filter's; help, submit_label: a record form's
# `errors[path] = [...]`: the problems of a field, named so in the API and the services.
ERROR_DICTS = frozenset({"errors", "problems"})
MESSAGES_FUNCTIONS = {"success": 1, "error": 1, "warning": 1, "info": 1, "debug": 1, "add_message": 2}
# HTML built for a page: its template's words outside the markup and the placeholders.
HTML_CALLS = frozenset({"format_html"})
_PLACEHOLDER = re.compile(r"{[^{}]*}")
# pit's own callables with labels people read, by position: name -> argument positions.
LABELLED_CALLS = {"PageLink": (1, 2), "model_page_link": (1, 2)}
# Fields whose first positional argument is not the verbose name but the related model.
RELATED_FIELDS = frozenset({"ForeignKey", "OneToOneField", "ManyToManyField"})
# The dict keys whose value is a sentence for people (API error envelopes, messages).
MESSAGE_KEYS = frozenset({"message", "detail", "title", "text"})  # title: a page's; text: a line on it
# The API's schema documentation (help texts and descriptions of its serializers and views, the
# examples of its answers) is the integrators' reference, written in English like the API's names;
# the API's answers themselves (error messages) are translated.
SCHEMA_DOCS = ("pit/api/resources/", "pit/api/schema.py", "pit/api/examples.py", "pit/api/docs.py")
SCHEMA_DOC_KINDS = frozenset({"help_text=", "description=", "'message' of a dict", "'title' of a dict"})
MARKERS = frozenset(
    {
        "_",
        "gettext",
        "gettext_lazy",
        "ngettext",
        "ngettext_lazy",
        "pgettext",
        "pgettext_lazy",
        "npgettext",
        "npgettext_lazy",
        "format_lazy",
        "mark_safe",
    }
)
LETTERS = re.compile(r"[A-Za-z]{2,}")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str
    text: str
    node: ast.AST | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}: {self.text!r}"


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _leaves(node: ast.AST | None) -> list[ast.AST]:
    """The pieces of an expression people read that are not marked for translation: string
    literals and f-strings with words in them, found through %, +, .format(), a conditional, a
    list, a tuple, a dict's values, and self.style.X(...); a marked call hides what it holds."""
    if node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node] if LETTERS.search(node.value) else []
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        return [node] if LETTERS.search(text) else []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _leaves(node.left)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _leaves(node.left) + _leaves(node.right)
    if isinstance(node, ast.Call):
        name = _call_name(node.func)
        if name in MARKERS:
            return []
        if name == "format" and isinstance(node.func, ast.Attribute):
            return _leaves(node.func.value)
        if name in {"SUCCESS", "ERROR", "WARNING", "NOTICE", "HTTP_INFO"} and node.args:  # self.style.X(...)
            return _leaves(node.args[0])
        return []
    if isinstance(node, ast.IfExp):
        return _leaves(node.body) + _leaves(node.orelse)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [leaf for item in node.elts for leaf in _leaves(item)]
    if isinstance(node, ast.Dict):
        return [leaf for value in node.values for leaf in _leaves(value)]
    return []


def _text(leaf: ast.AST) -> str:
    if isinstance(leaf, ast.Constant):
        return str(leaf.value)
    assert isinstance(leaf, ast.JoinedStr)
    return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in leaf.values)


def _unmarked(node: ast.AST | None) -> str | None:
    """The text of the first unmarked piece of an expression people read, or None."""
    leaves = _leaves(node)
    return _text(leaves[0]) if leaves else None


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, command: bool) -> None:
        self.path = path
        self.command = command  # a management command: its terminal output is for people
        self.findings: list[Finding] = []
        self.classes: list[ast.ClassDef] = []

    def flag(self, node: ast.AST, what: str, value: ast.AST | None) -> None:
        if self.path.startswith(SCHEMA_DOCS) and what in SCHEMA_DOC_KINDS:
            return
        for leaf in _leaves(value):
            self.findings.append(Finding(self.path, leaf.lineno, what, _text(leaf), leaf))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = {_call_name(b) for b in node.bases}
        choices = any(b.endswith("Choices") for b in bases)
        for statement in node.body:
            if isinstance(statement, ast.Assign):
                names = [t.id for t in statement.targets if isinstance(t, ast.Name)]
                if node.name == "Meta" and set(names) & {"verbose_name", "verbose_name_plural"}:
                    self.flag(statement, f"Meta.{names[0]}", statement.value)
                if choices and isinstance(statement.value, ast.Tuple) and len(statement.value.elts) >= 2:
                    self.flag(statement, f"{node.name} choice label", statement.value.elts[-1])
                if set(names) & {"fieldsets"} and isinstance(statement.value, (ast.Tuple, ast.List)):
                    for fieldset in statement.value.elts:
                        if isinstance(fieldset, (ast.Tuple, ast.List)) and fieldset.elts:
                            self.flag(fieldset, "fieldset title", fieldset.elts[0])
                # A management command's `help` is its --help text, in English like its options.
                read = USER_KEYWORDS | (USER_CLASS_ATTRIBUTES - {"help"} if self.command else USER_CLASS_ATTRIBUTES)
                if set(names) & read:
                    self.flag(statement, names[0], statement.value)
        self.classes.append(node)
        self.generic_visit(node)
        self.classes.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr in USER_KEYWORDS:
                self.flag(node, target.attr, node.value)
            if isinstance(target, ast.Subscript) and _call_name(target.value) in ERROR_DICTS:
                self.flag(node, f"{_call_name(target.value)}[...]", node.value)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value in MESSAGE_KEYS:
                self.flag(node, f"{key.value!r} of a dict", value)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _call_name(node.func)
        for keyword in node.keywords:
            if keyword.arg in USER_KEYWORDS:
                self.flag(node, f"{keyword.arg}=", keyword.value)
            if keyword.arg == "choices" and isinstance(keyword.value, (ast.List, ast.Tuple)):
                for choice in keyword.value.elts:
                    if isinstance(choice, ast.Tuple) and len(choice.elts) == 2:
                        self.flag(choice, "choice label", choice.elts[1])
        if name in MESSAGE_CALLS:
            position = MESSAGE_CALLS[name]
            if len(node.args) > position:
                self.flag(node, f"{name}()", node.args[position])
            for keyword in node.keywords:
                if keyword.arg in {"message", "msg"}:
                    self.flag(node, f"{name}(message=)", keyword.value)
        func = node.func
        if (
            name in MESSAGES_FUNCTIONS
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "messages"
        ):
            position = MESSAGES_FUNCTIONS[name]
            if len(node.args) > position:
                self.flag(node, f"messages.{name}()", node.args[position])
        if name in HTML_CALLS and node.args:
            template = node.args[0]
            if isinstance(template, ast.Constant) and isinstance(template.value, str):
                words = LETTERS.search(_PLACEHOLDER.sub(" ", _HTML.sub(" ", template.value)))
                if words:
                    self.findings.append(Finding(self.path, template.lineno, f"{name}()", template.value, template))
        if name in LABELLED_CALLS:
            for position in LABELLED_CALLS[name]:
                if len(node.args) > position:
                    self.flag(node, f"{name}() label", node.args[position])
        if (
            name.endswith("Field")
            and name not in RELATED_FIELDS
            and node.args
            and isinstance(func, ast.Attribute)
            and _call_name(func.value) in {"models", "forms"}
        ):
            self.flag(node, f"{name} verbose name", node.args[0])
        if (
            self.command
            and name == "write"
            and isinstance(func, ast.Attribute)
            and _call_name(func.value) in {"stdout", "stderr"}
            and node.args
        ):
            self.flag(node, f"{_call_name(func.value)}.write()", node.args[0])
        if self.command and name == "say" and node.args:
            self.flag(node, "say()", node.args[0])
        self.generic_visit(node)


def python_files(top: Path = ROOT / "pit") -> Iterator[Path]:
    for path in sorted(top.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if "/migrations/" in relative or relative.startswith("pit/settings/"):
            continue
        yield path


def unmarked_python(paths: Iterable[Path]) -> list[Finding]:
    findings: list[Finding] = []
    for path in paths:
        relative = path.relative_to(ROOT).as_posix()
        scanner = _Scanner(relative, command="/management/commands/" in relative or relative == "pit/core/arguments.py")
        scanner.visit(ast.parse(path.read_text(encoding="utf-8"), filename=relative))
        findings.extend(scanner.findings)
    return findings


# ------------------------------------------------------------------------- unmarked templates

_COMMENT = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}|{#.*?#}", re.S)
_BLOCKTRANSLATE = re.compile(r"{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}", re.S)
_SCRIPT_STYLE = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
# Blocks that hold CSS classes, not text.
_CLASS_BLOCKS = re.compile(r"{%\s*block\s+bodyclass\s*%}.*?{%\s*endblock\s*%}", re.S)
_TAG = re.compile(r"{%.*?%}|{{.*?}}", re.S)
_HTML = re.compile(r"<[^>]*>", re.S)
_ATTRIBUTE = re.compile(r"""\b(title|placeholder|aria-label|alt|value)\s*=\s*("[^"]*"|'[^']*')""", re.I)
_ENTITY = re.compile(r"&[#\w]+;")
TEMPLATE_WORDS = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")


def template_files(top: Path = ROOT / "templates") -> Iterator[Path]:
    yield from sorted(top.rglob("*.html"))
    yield from sorted(top.rglob("*.txt"))


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _blank(match: re.Match[str]) -> str:
    """A removed piece, its newlines kept so that line numbers stay right."""
    return "\n" * match.group(0).count("\n")


def unmarked_template(path: Path) -> list[Finding]:
    relative = path.relative_to(ROOT).as_posix()
    text = path.read_text(encoding="utf-8")
    text = _COMMENT.sub(_blank, text)
    text = _BLOCKTRANSLATE.sub(_blank, text)
    text = _SCRIPT_STYLE.sub(_blank, text)
    text = _CLASS_BLOCKS.sub(_blank, text)
    # What the tags and variables print is Django's business (a {% translate %} is marked); the
    # attributes are read around them.
    text = _TAG.sub(lambda m: " " + "\n" * m.group(0).count("\n"), text)
    findings: list[Finding] = []
    for match in _ATTRIBUTE.finditer(text):
        value = match.group(2)[1:-1]
        if match.group(1).lower() == "value" and not re.search(
            r"type=[\"'](submit|button|reset)", text[max(0, match.start() - 120) : match.end() + 120]
        ):
            continue
        # A <button>'s value is what the form sends (format=csv), not what it shows: only an
        # <input type="submit">'s value is its label.
        if match.group(1).lower() == "value" and re.match(
            r"<button\b", text[text.rfind("<", 0, match.start()) :], re.I
        ):
            continue
        if LETTERS.search(_ENTITY.sub(" ", value)):
            findings.append(
                Finding(relative, _line_of(text, match.start()), f"{match.group(1)} attribute", value.strip())
            )
    body = _HTML.sub(lambda m: " " + "\n" * m.group(0).count("\n"), text)
    body = _ENTITY.sub(" ", body)
    for number, line in enumerate(body.split("\n"), start=1):
        words = TEMPLATE_WORDS.findall(line)
        if words:
            findings.append(Finding(relative, number, "text", " ".join(words)))
    return findings


def unmarked_templates(paths: Iterable[Path]) -> list[Finding]:
    return [finding for path in paths for finding in unmarked_template(path)]


# ------------------------------------------------------------------------ unmarked JavaScript

_JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\\"'])//[^\n]*", re.S)
_JS_STRING = re.compile(r"""(?P<q>["'`])(?P<body>(?:\\.|(?!(?P=q)).)*?)(?P=q)""", re.S)
# Calls whose string argument is code, not text: selectors, element and attribute names, events.
_JS_CODE_CALLS = re.compile(
    r"(getElementById|querySelector(All)?|createElement(NS)?|setAttribute|getAttribute|removeAttribute|"
    r"hasAttribute|addEventListener|removeEventListener|classList\.(add|remove|toggle|contains)|"
    r"getItem|setItem|removeItem|get|fetch|el|closest|matches|replace|split|join|indexOf|startsWith)\(\s*$"
)
# The string after another argument: ngettext's plural, pgettext's message (a first argument that is
# itself a string may hold spaces).
_JS_MARKERS = re.compile(
    r"""\b(gettext|ngettext|pgettext|npgettext|gettext_noop|interpolate)\(\s*"""
    r"""("(?:\\.|[^"\\])*",\s*|'(?:\\.|[^'\\])*',\s*|\S+,\s*)?$"""
)
# Text for people: two words, or a capitalised word, or a single capital letter (a road's P/B/T).
_JS_TEXT = re.compile(r"[A-Za-z]+ [A-Za-z]+|\b[A-Z][a-z]+\b|^\s*[A-Z]\s*$|^[a-z]+ ")
_JS_NOT_TEXT = re.compile(r"^(use strict|[a-z0-9_.#\-\[\]=\"']*|https?://\S*|[^ ]*[:;{}=/][^ ]*|[A-Z_]+)$")


def unmarked_javascript(path: Path) -> list[Finding]:
    relative = path.relative_to(ROOT).as_posix()
    source = path.read_text(encoding="utf-8")
    text = _JS_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    findings: list[Finding] = []
    for match in _JS_STRING.finditer(text):
        body = match.group("body")
        before = text[max(0, match.start() - 60) : match.start()]
        if _JS_MARKERS.search(before) or _JS_CODE_CALLS.search(before):
            continue
        if re.search(r"\b(className|style|href|role|type|id|name|key|kind)\s*:\s*$", before):
            continue
        if re.search(r"[{,]\s*$", before) and re.match(r"\s*:", text[match.end() : match.end() + 3]):
            continue  # an object's key
        pieces = re.split(r"\$\{[^}]*\}", body) if match.group("q") == "`" else [body]
        for piece in pieces:
            piece = piece.replace("\\n", " ")
            if _JS_TEXT.search(piece) and not _JS_NOT_TEXT.match(piece):
                findings.append(Finding(relative, _line_of(text, match.start()), "JavaScript string", piece))
    return findings


def javascript_files(top: Path = ROOT / "static") -> Iterator[Path]:
    yield from sorted(top.rglob("*.js"))


def unmarked_scripts(paths: Iterable[Path]) -> list[Finding]:
    return [finding for path in paths for finding in unmarked_javascript(path)]
