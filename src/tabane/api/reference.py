"""Generate docs/http.md from the app's OpenAPI: `python -m tabane.api.reference > docs/http.md`.

A test regenerates it and compares, so the HTTP reference can never drift from the routes.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

INTRO = """# HTTP reference

Generated from the OpenAPI description by `python -m tabane.api.reference > docs/http.md`; a test
fails when it is out of date. The live description is served at `/openapi.json`.

`tabane serve` binds 127.0.0.1:8477 unless told otherwise (`--host`, `--port`, `TABANE_HOST`,
`TABANE_PORT`). MCP (streamable HTTP) is served at `/mcp`. Bodies are JSON; a body over
`TABANE_MAX_BODY_BYTES` (8 MiB) is refused with 413 before any route runs. Every error answers one
body:

    {"error": {"code": "no_context", "message": "no context 'x'",
               "issues": [{"path": "path.context", "problem": "unknown or not visible"}],
               "written": "nothing"}}

Branch on `code` (the codes are listed in [guide.md](guide.md#errors)); `issues[].path` names the
field at fault where the request carried it (`body.name`, `body.paragraphs[2].locator`,
`query.limit`, `path.context`), whether the schema or the service found the fault.
"""


def _schema_name(body: dict[str, Any] | None) -> str | None:
    if not body:
        return None
    schema = body.get("content", {}).get("application/json", {}).get("schema", {})
    ref = schema.get("$ref", "")
    return ref.rsplit("/", 1)[-1] or None


def _fields(spec: dict[str, Any], name: str | None) -> list[str]:
    if not name:
        return []
    schema = spec.get("components", {}).get("schemas", {}).get(name, {})
    required = set(schema.get("required", []))
    out = []
    for field, prop in schema.get("properties", {}).items():
        mark = "" if field in required else "?"
        desc = prop.get("description", "")
        out.append(f"  - `{field}{mark}`" + (f": {desc}" if desc else ""))
    return out


def render(app: FastAPI) -> str:
    spec = app.openapi()
    lines = [INTRO]
    for path in sorted(spec["paths"]):
        for method, op in sorted(spec["paths"][path].items()):
            lines.append(f"## `{method.upper()} {path}`\n")
            text = (op.get("description") or op.get("summary") or "").strip()
            if text:
                lines.append(text + "\n")
            params = [
                f"`{p['name']}` ({p['in']})"
                for p in op.get("parameters", [])
                if p["in"] != "header"
            ]
            if params:
                lines.append("Parameters: " + ", ".join(params) + "\n")
            body = _schema_name(op.get("requestBody"))
            if body:
                lines.append(f"Body `{body}`:")
                lines.extend(_fields(spec, body))
                lines.append("")
            ok = sorted(code for code in op.get("responses", {}) if code.startswith("2"))
            errors = sorted(code for code in op.get("responses", {}) if not code.startswith("2"))
            lines.append(f"Answers {', '.join(ok) or '200'}; errors {', '.join(errors) or '-'}.\n")
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from tabane.api.app import create_app
    from tabane.config import Settings
    from tabane.service import Tabane
    from tabane.storage import embedded

    with TemporaryDirectory() as tmp:
        home = Path(tmp)
        settings = Settings(home=home, local_user="docs", embedder="none", worker="off")
        with Tabane.open(settings) as svc:
            print(render(create_app(svc)), end="")
        embedded.stop(home)


if __name__ == "__main__":  # pragma: no cover
    main()
