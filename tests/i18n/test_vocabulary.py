"""The game's vocabulary in each language comes from the seed translations of the rules article.

``GLOSSARY`` is the table of docs/I18N.md: for each language and term, the catalogue key, the word the
catalogue uses, and the words of the seed that it comes from. Where the seed's word is a machine
mistranslation a player would not recognise, ``DEVIATIONS`` says so and what is used instead (also in
docs/I18N.md). The seed files are identified by their contents, not their names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.i18n import CATALOGUES

SEEDS = Path("/work/shared/seeds")

#: language -> [(catalogue key, word in the catalogue text, words found in the seed)]
GLOSSARY: dict[str, list[tuple[str, str, str]]] = {
    "fil": [("term.misere", "Misere", "Misere"), ("bid.OPEN_MISERE", "Open Misere", "Open Misere"),
            ("bid.BLIND_MISERE", "Bulag", "Bulag Ang Misere"), ("strain.NT", "No Trumps", "NT (No Trumps)"),
            ("term.joker", "Joker", "Joker"), ("term.right_bower", "kanang bower", "kanang bower"),
            ("term.left_bower", "kaliwang bower", "kaliwang bower"), ("term.kitty", "kitty", "kitty"),
            ("suit.H", "Puso", "Mga Puso"), ("suit.D", "Diamante", "Mga diamante"), ("suit.C", "Club", "Mga club"),
            ("suit.S", "Spade", "Spade"), ("term.trick", "trick", "trick"), ("term.suit", "suit", "suit"),
            ("term.contractor", "kontratista", "kontratista"), ("term.bid", "bid", "bid"),
            ("term.pass", "pumasa", "pumasa"), ("rank.J", "Jack", "jack")],
    "su": [("term.misere", "Misere", "Misere"), ("bid.OPEN_MISERE", "Open Misere", "Open Misere"),
           ("bid.BLIND_MISERE", "Buta", "Buta Misere"), ("strain.NT", "No Trumps", "NT (No Trumps)"),
           ("term.joker", "Joker", "Joker"), ("term.right_bower", "bower katuhu", "bower katuhu"),
           ("term.left_bower", "bower kénca", "bower kénca"), ("term.kitty", "kitty", "Kitty"),
           ("suit.H", "Haté", "Haté"), ("suit.D", "Inten", "Inten"), ("suit.C", "Klub", "Klub"),
           ("suit.S", "Spades", "Spades"), ("term.trick", "trik", "trik"), ("term.suit", "jas", "jas"),
           ("term.contractor", "kontraktor", "kontraktor"), ("term.bid", "tawaran", "tawaran"),
           ("term.pass", "lulus", "lulus"), ("rank.J", "Jack", "jack")],
    "sq": [("term.misere", "Misere", "Misere"), ("bid.OPEN_MISERE", "Misere e hapur", "Misere e hapur"),
           ("bid.BLIND_MISERE", "verbër", "VERBËR MISERE"), ("term.trump", "atu", "kostum atu"),
           ("term.joker", "xhoker", "Xhokeri"), ("term.right_bower", "bower", "bower"),
           ("term.kitty", "kotele", "kotelen"), ("term.suit", "kostum", "kostum"), ("suit.H", "Zemra", "Zemrat"),
           ("suit.D", "Diamante", "Diamante"), ("suit.C", "Klube", "Klubet"), ("suit.S", "Lopata", "6 lopata"),
           ("term.trick", "truk", "truket"), ("term.contractor", "kontraktor", "kontraktori"),
           ("term.bid", "ofertë", "ofertë"), ("term.pass", "kaloj", "kaloni")],
    "th": [("term.misere", "Misere", "Misere"), ("bid.OPEN_MISERE", "เปิด", "เปิด/ปิด MISERE"),
           ("bid.BLIND_MISERE", "ตาบอด", "ตาบอด Misere"), ("strain.NT", "ไม่มีทรัมป์", "NT (ไม่มีทรัมป์)"),
           ("term.joker", "โจ๊กเกอร์", "โจ๊กเกอร์"), ("term.right_bower", "โบว์เวอร์ขวา", "โบว์เวอร์ขวา"),
           ("term.kitty", "คิตตี้", "คิตตี้"), ("suit.H", "หัวใจ", "หัวใจ"), ("suit.D", "เพชร", "เพชร"),
           ("suit.C", "คลับ", "คลับ"), ("suit.S", "โพดำ", "โพดำ"), ("term.trick", "ทริก", "ทริก"),
           ("term.suit", "ชุด", "ชุด"), ("term.contractor", "ผู้ทำสัญญา", "ผู้ทำสัญญา"),
           ("term.bid", "ประมูล", "การประมูล"), ("term.pass", "ผ่าน", "ผ่าน"), ("rank.J", "แจ็ค", "แจ็ค")],
    "hr": [("term.misere", "Misere", "Misere"), ("bid.OPEN_MISERE", "Otvoreni Misere", "Otvoreni Misere"),
           ("bid.BLIND_MISERE", "Slijepi Misere", "SLIJEPI MISERE"), ("strain.NT", "Bez aduta", "bez aduta"),
           ("term.trump", "adut", "adut"), ("term.joker", "joker", "joker"),
           ("term.right_bower", "desni bower", "desni bower"), ("term.left_bower", "lijevi bower", "lijevi bower"),
           ("term.kitty", "mačkica", "mačkicu"), ("term.suit", "boja", "boja"), ("suit.H", "Srce", "Srca"),
           ("suit.D", "Karo", "10 karo"), ("suit.S", "Pik", "Pikovi"), ("term.trick", "štih", "štih"),
           ("term.contractor", "izvođač", "izvođač"), ("term.bid", "licitacija", "licitacija")],
}

#: Seed words not used, and why: (language, catalogue key, word used, seed word).
DEVIATIONS = [
    ("sq", "strain.NT", "Pa atu", "Pa pulla"),  # "pulla" are postage stamps; the seed's trump is "atu"
    ("sq", "rank.J", "fant", "foleja"),  # "fole" is a socket (the jack plug)
    ("sq", "term.trick", "truk", "mashtrim"),  # "mashtrim" is a swindle; the seed also says "truk"
    ("th", "term.left_bower", "โบว์เวอร์ซ้าย", "ตัวล่างซ้าย"),  # the seed's right bower is โบว์เวอร์ขวา
    ("hr", "suit.C", "Tref", "Klubovi"),  # clubs as associations; Croatian players say tref
    ("hr", "rank.J", "dečko", "žandar"),  # a gendarme (and "Jack" in English); Croatian players say dečko
]

SEED_LANGUAGE_MARKERS = {"fil": "Limang Daan", "su": "Lima Ratus", "sq": "Pesëqind", "th": "ห้าร้อย",
                         "hr": "Petsto"}


def _seeds() -> dict[str, str]:
    if not SEEDS.is_dir():
        pytest.skip("the seed translations are not on this machine")
    texts = [p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt"))]
    found = {}
    for language, marker in SEED_LANGUAGE_MARKERS.items():
        matches = [t for t in texts if marker.lower() in t[:300].lower()]
        assert len(matches) == 1, (language, len(matches))
        found[language] = matches[0]
    return found


@pytest.mark.parametrize("language", sorted(GLOSSARY))
def test_the_catalogue_uses_the_glossary(language: str) -> None:
    cat = CATALOGUES[language]
    for key, word, _ in GLOSSARY[language]:
        assert word.lower() in cat.template(key).lower(), (language, key, word, cat.template(key))
    for dev_language, key, word, _ in DEVIATIONS:
        if dev_language == language:
            assert word.lower() in cat.template(key).lower()


@pytest.mark.parametrize("language", sorted(GLOSSARY))
def test_the_glossary_comes_from_the_seed(language: str) -> None:
    seed = _seeds()[language].lower()
    missing = [evidence for _, _, evidence in GLOSSARY[language] if evidence.lower() not in seed]
    assert not missing, (language, missing)
    assert all(seed_word.lower() in seed for lang, _, _, seed_word in DEVIATIONS if lang == language)


@pytest.mark.parametrize("language", sorted(GLOSSARY))
def test_terms_are_used_consistently(language: str) -> None:
    """The word chosen for the joker, the kitty and misère is the one every text of the language uses."""
    cat = CATALOGUES[language]
    joker, kitty = cat.template("term.joker").lower(), cat.template("term.kitty").lower()
    stem = {"hr": "mačkic", "sq": "kotel"}.get(language, kitty)
    for key in cat.keys:
        if key in cat.plural_keys:
            continue
        text = cat.template(key).lower()
        english = re.sub(r"\S*_\S*", "", CATALOGUES["en"].template(key).lower())  # option values are tokens
        if "joker" in english and not key.startswith(("card.", "term.joker")):
            assert joker.split()[0][:5] in text, (language, key, text)
        if "kitty" in english and key not in ("term.sans_kitty",):
            assert stem in text or "kitty" in text, (language, key, text)
