"""The message catalogues: one gettext ``.po`` file per language in ``service/i18n/locales``, read with Babel.

Message ids are keys (``reason.MUST_FOLLOW_SUIT``, ``option.target``, ``suit.H`` …) and ``en.po`` holds the
English source text of each; a translator edits only the ``.po`` file of their language (each entry carries
the English text as a ``#.`` comment). Texts are ``str.format`` templates with named placeholders
(``{seat}``, ``{card}``, ``{count}``). A text that depends on a number is a gettext plural entry (``msgid`` the
key, ``msgid_plural`` the key with ``#plural``) with as many forms as the language's ``Plural-Forms`` header,
which is Babel's (CLDR) plural rule for the language; ``{count}`` chooses the form.

The ``.po`` files are read once, at import: nothing is compiled in a build step. Each is turned into an
in-memory ``.mo`` (Babel's ``write_mo``) and served through :class:`babel.support.Translations`, the standard
gettext machinery, so plural forms are chosen exactly as any gettext tool chooses them. Fuzzy entries count as
untranslated.
"""

from __future__ import annotations

import io
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from service.i18n.negotiation import SUPPORTED_LANGUAGES

LOCALE_DIR = Path(__file__).resolve().parent / "locales"
PLURAL_SUFFIX = "#plural"


class MessageCatalogue:
    """One language's texts: ``text(key, **params)``; plural entries take their form from ``params["count"]``."""

    def __init__(self, language: str, path: Path) -> None:
        self.language = language
        self.locale = Locale.parse(language)
        with path.open("rb") as source:
            self.po: Catalog = read_po(source, locale=language)
        mo = io.BytesIO()
        write_mo(mo, self.po)
        mo.seek(0)
        self._translations = Translations(mo)
        plural: set[str] = set()
        keys: set[str] = set()
        for m in self.po:
            if not m.id or m.fuzzy:
                continue
            if isinstance(m.id, tuple | list):
                if isinstance(m.string, tuple | list) and m.string and all(m.string):
                    plural.add(m.id[0])
                    keys.add(m.id[0])
            elif m.string:
                keys.add(m.id)
        self.plural_keys: frozenset[str] = frozenset(plural)
        self.keys: frozenset[str] = frozenset(keys)

    def has(self, key: str) -> bool:
        return key in self.keys

    def template(self, key: str, count: int | None = None) -> str:
        """The raw template of ``key`` (for plural entries, the form for ``count``); ``KeyError`` if missing."""
        if key not in self.keys:
            raise KeyError(key)
        if key in self.plural_keys:
            return self._translations.ngettext(key, key + PLURAL_SUFFIX, 1 if count is None else count)
        return self._translations.gettext(key)


def load_catalogues(directory: Path = LOCALE_DIR) -> dict[str, MessageCatalogue]:
    """Every supported language's catalogue (a missing file is an error: the service must not start)."""
    return {language: MessageCatalogue(language, directory / f"{language}.po") for language in SUPPORTED_LANGUAGES}


CATALOGUES = load_catalogues()

__all__ = ["CATALOGUES", "LOCALE_DIR", "PLURAL_SUFFIX", "MessageCatalogue", "load_catalogues"]
