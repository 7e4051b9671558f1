"""Extras are checked where they are asked for: each integration, when it is created (imported,
constructed, wrapped, called), raises ImportError naming its extra when its library is missing,
through the one helper `errconv._extras.require`; and public modules list only public names.

Each case runs in a fresh interpreter whose imports of the library are refused (as when it is
not installed), and must raise at the line that creates the integration, not later.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import textwrap
import types

import pytest

import errconv
from errconv._extras import require

_SCRIPT = """
import importlib.abc, sys

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {blocked!r} or name.startswith({blocked!r} + "."):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
{setup}
try:
    {create}
except ImportError as exc:
    print("raised at creation:", exc)
else:
    print("not raised")
"""

TOOL = "def tool(x: int) -> int:\n    return x\n"

CASES = [
    # (blocked library, setup, the creating line, extra, what the message names)
    ("mcp", "from errconv.agents.mcp import wrap\n" + TOOL, "wrap(tool)", "mcp", "MCP"),
    ("agents", "from errconv.agents.openai_agents import wrap\n" + TOOL, "wrap(tool)", "openai-agents", "OpenAI Agents SDK"),
    ("langchain_core", "from errconv.agents.langchain import wrap\n" + TOOL, "wrap(tool)", "langchain", "LangChain"),
    ("pydantic_ai", "from errconv.agents.pydantic_ai import wrap\n" + TOOL, "wrap(tool)", "pydantic-ai", "PydanticAI"),
    ("llama_index", "from errconv.agents.llama_index import wrap\n" + TOOL, "wrap(tool)", "llama-index", "LlamaIndex"),
    ("crewai", "from errconv.agents.crewai import wrap\n" + TOOL, "wrap(tool)", "crewai", "CrewAI"),
    ("httpx", "", "import errconv.clients.httpx", "httpx", "errconv.clients.httpx"),
    ("httpx2", "", "import errconv.clients.httpx2", "httpx2", "errconv.clients.httpx2"),
    ("requests", "", "import errconv.clients.requests", "requests", "errconv.clients.requests"),
    ("tenacity", "", "import errconv.clients.tenacity", "tenacity", "errconv.clients.tenacity"),
    ("stamina", "", "import errconv.clients.stamina", "stamina", "errconv.clients.stamina"),
    ("grpc", "", "import errconv.interceptors", "grpc", "errconv.interceptors"),
    ("grpc", "", "import errconv.aio", "grpc", "errconv.aio"),
    ("starlette", "import errconv.gateway", "errconv.gateway.install(object())", "starlette", "errconv.gateway.install"),
    ("litestar", "import errconv.gateway", "errconv.gateway.LitestarPlugin()", "litestar", "errconv.gateway.LitestarPlugin"),
    ("pyarrow", "from errconv import batch", "batch.schema()", "arrow", "errconv.batch.schema"),
    ("pyarrow", "from errconv import batch", "batch.table([b'x'])", "arrow", "errconv.batch.table"),
    ("tqdm", "from errconv import batch", "batch.rows([b'x'], progress=True)", "progress", "progress=True"),
]


@pytest.mark.parametrize(("blocked", "setup", "create", "extra", "what"), CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_a_missing_library_is_named_with_its_extra_at_creation(blocked: str, setup: str, create: str, extra: str, what: str) -> None:
    script = _SCRIPT.format(blocked=blocked, setup=setup, create=create)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout.strip()
    assert out.startswith("raised at creation: "), out
    assert f"which is not installed: pip install 'errconv[{extra}]'" in out and what in out, out


def test_require_names_a_missing_dependency_of_the_package() -> None:
    with pytest.raises(ImportError, match=r"^errconv.x needs Foo, which is not installed: pip install 'errconv\[foo\]'$") as raised:
        require("errconv_no_such_module.sub", package="Foo", extra="foo", what="errconv.x")
    assert raised.value.name == "errconv_no_such_module"
    assert isinstance(raised.value.__cause__, ImportError)


def test_require_is_the_only_helper() -> None:
    # Every integration says it the same way: no second helper, no hand-written message.
    import errconv._extras as extras
    from errconv.agents import _core

    assert extras.__all__ == ["require"] and _core.require is require


# The dialect modules are reached through the registry (`errconv.dialects.get`), not imported by name.
PUBLIC = ["errconv"] + sorted(
    m.name
    for m in pkgutil.walk_packages(errconv.__path__, "errconv.")
    if not any(part.startswith("_") for part in m.name.split(".")[1:]) and not m.name.startswith("errconv.dialects.")
)


@pytest.mark.parametrize("name", PUBLIC)
def test_a_public_module_lists_only_public_names(name: str) -> None:
    module = importlib.import_module(name)
    listed = [n for n in dir(module) if not n.startswith("_")]
    public = set(getattr(module, "__all__", ()))
    stray = [n for n in listed if n not in public and not isinstance(getattr(module, n), types.ModuleType)]
    assert not stray, f"dir({name}) lists names it does not export: {stray}"
    assert "annotations" not in listed
