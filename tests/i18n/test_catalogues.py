"""The catalogues are complete and consistent: every key in every language, the same placeholders as English,
Babel's plural rule in each, and a text for every refusal reason, problem code, option, preset, phase, move,
suit, rank and bid the service can name."""

from __future__ import annotations

import ast
import re
import string
import typing
from pathlib import Path

import msgspec
import pytest
from babel import Locale
from babel.messages.plurals import get_plural

from engine import PRESETS, Move, Options
from engine.model import Phase
from service.i18n import CATALOGUES, SUPPORTED_LANGUAGES
from service.i18n.catalogues import LOCALE_DIR, PLURAL_SUFFIX, MessageCatalogue, load_catalogues
from service.web.openapi import PROBLEM_EXAMPLES
from tests.support import ROOT

ENGLISH = CATALOGUES["en"]
OTHERS = [language for language in SUPPORTED_LANGUAGES if language != "en"]
#: Problem codes answered by the exception handlers themselves (routing, unexpected errors, media type).
HANDLER_CODES = ("NOT_FOUND", "METHOD_NOT_ALLOWED", "INTERNAL", "UNSUPPORTED_MEDIA_TYPE")


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _forms(cat: MessageCatalogue, key: str) -> list[str]:
    """Every form of ``key`` (one per plural category the language has)."""
    if key not in cat.plural_keys:
        return [cat.template(key)]
    return list(dict.fromkeys(cat.template(key, n) for n in range(0, 200)))


def _reason_codes() -> tuple[set[str], set[str]]:
    """Every refusal reason the engine and the service's syntax layer can give, and every text variant."""
    reasons: set[str] = set()
    cases: set[str] = set()
    for path in (*sorted((ROOT / "engine").glob("*.py")), ROOT / "service" / "referee" / "moves.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rejection" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    reasons.add(first.value)
                elif isinstance(first, ast.Attribute):  # Reason.X, once reasons are an enumeration
                    reasons.add(first.attr)
                for arg in node.args[2:]:
                    if isinstance(arg, ast.Dict):
                        for k, v in zip(arg.keys, arg.values, strict=True):
                            if isinstance(k, ast.Constant) and k.value == "case" and isinstance(v, ast.Constant):
                                code = first.value if isinstance(first, ast.Constant) else getattr(first, "attr", "")
                                cases.add(f"{code}.{v.value}")
    try:  # the enumeration, when the engine has one
        from engine import reasons as reason_module  # type: ignore[attr-defined]

        reasons |= {member.value for member in reason_module.Reason}
    except ImportError:
        pass
    return reasons, cases


def test_every_language_has_a_catalogue_file() -> None:
    assert sorted(p.stem for p in LOCALE_DIR.glob("*.po")) == sorted(SUPPORTED_LANGUAGES)


@pytest.mark.parametrize("language", OTHERS)
def test_every_message_key_exists_in_every_language(language: str) -> None:
    cat = CATALOGUES[language]
    missing = sorted(ENGLISH.keys - cat.keys)
    assert not missing, f"{language}.po lacks (or has fuzzy or empty) translations of {missing}"
    assert not sorted(cat.keys - ENGLISH.keys), "keys that English does not have"
    assert cat.plural_keys == ENGLISH.plural_keys


def test_a_missing_translation_is_detected(tmp_path: Path) -> None:
    """The completeness check above really sees an untranslated, a fuzzy and a removed entry."""
    for language in SUPPORTED_LANGUAGES:
        (tmp_path / f"{language}.po").write_bytes((LOCALE_DIR / f"{language}.po").read_bytes())
    po = tmp_path / "hr.po"
    text = po.read_text()
    text = text.replace('msgstr "Igra je završena."', 'msgstr ""')
    text = text.replace('msgid "card.JK"\n', '#, fuzzy\nmsgid "card.JK"\n')
    text = text.replace('msgid "suit.H"\nmsgstr "Srce"\n', '')
    po.write_text(text)
    broken = load_catalogues(tmp_path)["hr"]
    assert ENGLISH.keys - broken.keys == {"reason.GAME_OVER", "card.JK", "suit.H"}


@pytest.mark.parametrize("language", OTHERS)
def test_every_placeholder_matches_english(language: str) -> None:
    cat = CATALOGUES[language]
    for key in sorted(ENGLISH.keys):
        expected = set().union(*(_placeholders(form) for form in _forms(ENGLISH, key)))
        for form in _forms(cat, key):
            assert _placeholders(form) == expected, (language, key, form)


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_plural_forms_are_babels_cldr_rule(language: str) -> None:
    """The header is Babel's plural rule for the language, and the form chosen for each number follows the
    CLDR category of that number (one form per category, the same form for the same category)."""
    cat = CATALOGUES[language]
    forms, expression = get_plural(language)
    assert cat.po.num_plurals == forms and cat.po.plural_expr == expression
    rule = Locale.parse(language).plural_form
    for key in sorted(cat.plural_keys):
        by_category: dict[str, set[str]] = {}
        for n in range(0, 250):
            by_category.setdefault(rule(n), set()).add(cat.template(key, n))
        assert all(len(texts) == 1 for texts in by_category.values()), (language, key, by_category)
        raw = next(m for m in cat.po if isinstance(m.id, tuple | list) and m.id[0] == key)
        assert raw.id[1] == key + PLURAL_SUFFIX and len(raw.string) == forms


def test_croatian_has_three_forms_and_thai_one() -> None:
    hr, th = CATALOGUES["hr"], CATALOGUES["th"]
    assert [hr.template("reason.WRONG_DISCARD_COUNT", n).split()[-1] for n in (1, 3, 5, 21, 12)] == [
        "kartu.", "karte.", "karata.", "kartu.", "karata."]
    assert len({th.template("reason.WRONG_DISCARD_COUNT", n) for n in range(30)}) == 1


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_refusal_reason_has_a_text(language: str) -> None:
    from engine.reasons import Reason

    reasons, cases = _reason_codes()
    reasons |= {r.value for r in Reason}
    assert len(reasons) >= 35 and "MUST_FOLLOW_SUIT" in reasons and cases
    cat = CATALOGUES[language]
    assert not sorted(r for r in reasons if not cat.has(f"reason.{r}"))
    assert not sorted(c for c in cases if not cat.has(f"reason.{c}"))


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_problem_code_has_a_title_and_detail(language: str) -> None:
    from service.web.codes import ProblemCode

    codes = set(PROBLEM_EXAMPLES) | set(HANDLER_CODES) | {c.value for c in ProblemCode}
    cat = CATALOGUES[language]
    missing = sorted(f"problem.{c}.{part}" for c in codes for part in ("title", "detail")
                     if not cat.has(f"problem.{c}.{part}"))
    assert not missing


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_rules_catalogue_text_exists(language: str) -> None:
    cat = CATALOGUES[language]
    keys = [f"option.{name}" for name in Options.__struct_fields__]
    keys += [f"preset.{name}" for name in PRESETS]
    keys += [f"phase.{phase}" for phase in typing.get_args(Phase)]
    for struct in typing.get_args(Move):
        tag = getattr(msgspec.inspect.type_info(struct), "tag", None)
        keys += [f"move.{tag}", f"move.{tag}.description"]
    keys += [f"suit.{s}" for s in "SCDH"] + [f"card.suit.{s}" for s in "SCDH"] + ["strain.NT", "card.pattern"]
    keys += [f"rank.{r}" for r in "AKQJ"] + ["card.JK", "card.JKB", "bid.pattern"]
    keys += [f"bid.{b}" for b in ("MISERE", "OPEN_MISERE", "BLIND_MISERE")]
    keys += [f"term.{t}" for t in ("trump", "no_trumps", "joker", "right_bower", "left_bower", "kitty", "trick",
                                   "suit", "bid", "pass", "contract", "contractor", "misere", "open_misere",
                                   "blind_misere", "sans_kitty", "slam")]
    assert not [key for key in keys if not cat.has(key)]
    assert ENGLISH.template("option.target") == "Score that wins (inclusive)."  # English is the engine's text


def test_no_po_file_leaves_english_or_keys_in_place_of_a_translation() -> None:
    """A translation identical to English is allowed only where the text is a term or a token."""
    allowed = re.compile(r"^(term\.|option\.(deal_pattern|score_table|six_player_kitty)|bid\.|card\.pattern|strain\.NT|"
                         r"suit\.|card\.suit\.|card\.JK$|rank\.J$|move\.bid$|problem\.NOT_READY)")
    for language in OTHERS:
        cat = CATALOGUES[language]
        same = [k for k in ENGLISH.keys if k not in ENGLISH.plural_keys and cat.template(k) == ENGLISH.template(k)
                and not allowed.match(k)]
        assert not same, (language, same)
        assert not [k for k in cat.keys if cat.template(k, 2) == k]
