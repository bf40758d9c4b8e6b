"""What several ``rankscope clicks`` subcommands share: the click models' names and reading
back the parameters ``clicks fit -o`` wrote (``simulate --params``,
``estimate --reward-model``)."""

from __future__ import annotations

#: `rankscope.clicks.MODELS`, repeated so that building the parser imports nothing (a test
#: checks they agree).
MODELS = ("pbm", "cm", "ubm", "dbn", "sdbn")


def model_file(path: str):
    """The click model whose parameters ``clicks fit -o`` wrote to ``path``."""
    import json

    from ... import clicks
    from ...errors import InputError

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc})") from None
    return clicks.from_dict(data, path)
