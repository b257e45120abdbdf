"""The import contract (pit/contract.py) holds for every import of our own code in pit/, at the top of
a module and inside functions alike; a function-local import of our own code says why in a comment."""

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from pit import contract

ROOT = Path(__file__).resolve().parent.parent
PIT = ROOT / "pit"


@dataclass(frozen=True)
class Import:
    module: str  # the importer
    target: str  # the module imported
    line: int
    local: bool  # inside a function
    commented: bool  # a comment on its line or the line above


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PIT.rglob("*.py")) if "migrations" not in path.parts}


def _comment_lines(source: str) -> set[int]:
    """Lines that carry a comment saying something (a bare noqa or type: directive says nothing)."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            if text and not text.startswith(("noqa", "type:", "pragma")):
                lines.add(token.start[0])
    return lines


def _imports(module: str, path: Path, known: set[str]) -> list[Import]:
    source = path.read_text()
    comments = _comment_lines(source)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []
    seen: set[tuple[str, str, int]] = set()

    # A comment on an import's line or the line above covers the block of imports that follow it.
    said: set[int] = set()
    for node in sorted(
        (node for node in ast.walk(ast.parse(source)) if isinstance(node, (ast.Import, ast.ImportFrom))),
        key=lambda node: node.lineno,
    ):
        if node.lineno in comments or node.lineno - 1 in comments or node.lineno - 1 in said:
            said.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    def add(target: str, node: ast.stmt, local: bool) -> None:
        if (target == "pit" or target.startswith("pit.")) and (module, target, node.lineno) not in seen:
            seen.add((module, target, node.lineno))
            found.append(Import(module, target, node.lineno, local, node.lineno in said))

    def visit(node: ast.AST, local: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, child, local)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                for alias in child.names:
                    # `from pit import game` imports the module pit.game
                    submodule = f"{target}.{alias.name}"
                    add(submodule if submodule in known else target, child, local)
            visit(child, local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(source), False)
    return found


def _component_of(module: str) -> str | None:
    if module == "pit":
        return "project"
    best, best_length = None, -1
    for name, prefixes in contract.COMPONENTS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = name, len(prefix)
    return best


def _layer_of() -> dict[str, int]:
    return {name: index for index, layer in enumerate(contract.LAYERS) for name in layer}


def _app_of(module: str) -> str:
    return module.split(".")[1] if module.count(".") else module


def _breaks(item: Import) -> str | None:
    """Why this import breaks the contract, or None."""
    layer_of = _layer_of()
    source, target = _component_of(item.module), _component_of(item.target)
    if source == target:
        return None
    if layer_of[target] > layer_of[source]:
        return f"{source} (layer {layer_of[source]}) imports {target}, a higher layer ({layer_of[target]})"
    if layer_of[target] == layer_of[source]:
        return f"{source} imports {target}: they share layer {layer_of[source]} and are independent"
    if (
        source in contract.READ_ONLY
        and target != "core"
        and item.target.rpartition(".")[2] == "services"
        and _app_of(item.target) != _app_of(item.module)
    ):
        return f"{source} reads and never writes, but imports the write services {item.target}"
    return None


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    modules = _modules()
    return [item for module, path in modules.items() for item in _imports(module, path, set(modules))]


def test_every_component_is_in_one_layer():
    layered = [name for layer in contract.LAYERS for name in layer]
    assert sorted(layered) == sorted(contract.COMPONENTS)
    assert len(layered) == len(set(layered))


def test_every_module_belongs_to_a_component():
    assert [module for module in _modules() if _component_of(module) is None] == []


def test_no_import_breaks_the_layers(imports):
    broken = [
        f"{item.module}:{item.line} imports {item.target}: {reason}"
        for item in imports
        if (reason := _breaks(item)) is not None
    ]
    assert not broken, "\n".join(broken)


def _silent(item: Import) -> bool:
    return item.local and not item.commented


def test_function_local_imports_say_why(imports):
    silent = [
        f"{item.module}:{item.line} imports {item.target} inside a function with no comment saying why"
        for item in imports
        if _silent(item)
    ]
    assert not silent, "\n".join(silent)


def test_restricted_packages_stay_in_their_components():
    exempt = {(module, package) for module, package, _why in contract.RESTRICTED_EXEMPT}
    found = []
    for module, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            for name in names:
                for package, allowed, why in contract.RESTRICTED_PACKAGES:
                    outside = name.split(".")[0] == package and _component_of(module) not in allowed
                    if outside and (module, package) not in exempt:
                        found.append(f"{module}:{node.lineno} imports {name} ({why})")
    assert not found, "\n".join(found)


def test_the_contract_sees_a_back_import():
    """The layers are checked, not assumed: an import of the API from a domain app is refused."""
    item = Import("pit.shoes.models", "pit.api.views", 1, local=False, commented=False)
    assert _breaks(item) == "shoes (layer 8) imports api, a higher layer (16)"
