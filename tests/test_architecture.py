"""The package's shape, read from its imports (docs/architecture.md draws it).

Every import counts, a function's own and a type checker's too: an import made late
is still a dependency, and a circle of them is still a circle.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "papersite"

# How the build runs (engine/) and the preview (preview/) sit above the stages: the
# spine and the commands may use them, the stages never.
MACHINERY = ("papersite.engine", "papersite.preview")
ABOVE_THE_STAGES = ("papersite.pipeline", "papersite.cli", "papersite.__main__", "papersite.deploy", "papersite.check",
                    *MACHINERY)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            # `from . import x` names a module x; `from .m import f` names m
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import papersite.a.b` depends on papersite.a.b, or its package
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports_of(name, path, set(found)) for name, path in found.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def test_the_package_has_no_import_circle():
    assert circles(import_graph()) == []


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]


def test_no_stage_imports_the_engine_or_the_preview():
    graph = import_graph()
    wrong = sorted((name, target) for name, targets in graph.items() if not within(name, ABOVE_THE_STAGES)
                   for target in targets if within(target, MACHINERY))
    assert wrong == []


def test_the_engine_does_not_import_the_preview():
    graph = import_graph()
    wrong = sorted((name, target) for name, targets in graph.items() if within(name, ("papersite.engine",))
                   for target in targets if within(target, ("papersite.preview",)))
    assert wrong == []


def test_every_command_builds_through_the_spine():
    """build, serve and deploy reach the stages only through pipeline.build_site."""
    graph = import_graph()
    for command in ("papersite.engine.command", "papersite.preview.rebuild", "papersite.deploy"):
        assert "papersite.pipeline" in graph[command], command
        assert not graph[command] & {"papersite.site.render", "papersite.site.pages", "papersite.catalog"}, command


@pytest.mark.parametrize("name", ["papersite.catalog", "papersite.text.abstracts"])
def test_imports_are_read_relative_and_absolute(name):
    graph = import_graph()
    assert "papersite.source.config" in graph["papersite.catalog"]  # `from ..source.config import`
    assert graph[name]  # something is found for every kind of module
