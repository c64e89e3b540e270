"""Log lines of a server process (`tabane serve`, `tabane worker`): text or one JSON object each
(TABANE_LOG_FORMAT).

A JSON line holds `ts` (UTC, ISO 8601), `level`, `logger`, `message`, and the fields a record
carries in `extra` (api/observe.py's request line: method, route, status, duration_ms,
request_id, user, key); an exception's traceback goes in `exc`. uvicorn's own access log is off
under `tabane serve`: the request line replaces it, with the route template instead of the path.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

# The attributes every LogRecord has; anything else on a record came in through `extra` (less
# uvicorn's `color_message`, the message again with terminal colour codes).
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_") and key not in line:
                line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """`time level logger message`, then the request id when the record has one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        rid = getattr(record, "request_id", None)
        user = getattr(record, "user", None)
        return text + (f" req={rid}" if rid else "") + (f" user={user}" if user else "")


def formatter(log_format: str) -> logging.Formatter:
    return JsonFormatter() if log_format == "json" else TextFormatter()


def log_config(log_format: str) -> dict[str, Any]:
    """A `logging.config.dictConfig` for a server process: tabane's and uvicorn's loggers to
    stderr in the chosen format, at INFO."""
    target = f"{__name__}.{'JsonFormatter' if log_format == 'json' else 'TextFormatter'}"
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "tabane",
        "stream": "ext://sys.stderr",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"tabane": {"()": target}},
        "handlers": {"stderr": handler},
        "loggers": {
            name: {"handlers": ["stderr"], "level": "INFO", "propagate": False}
            for name in ("tabane", "uvicorn", "uvicorn.error")
        },
    }
