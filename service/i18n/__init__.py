"""The service's texts in English and the five languages the rules were written up in.

- :mod:`service.i18n.negotiation`: which language a request gets (``Accept-Language``, ``lang``);
- :mod:`service.i18n.catalogues`: the gettext ``.po`` catalogues in ``locales/`` (one per language);
- :mod:`service.i18n.texts`: refusals, problems and the names of cards, suits, bids, phases and moves, worded
  from their parameters;
- :mod:`service.i18n.middleware`: the per-request language and the ``Content-Language``/``Vary`` headers.

The game's vocabulary in each language follows the seed translations of the rules article
(``docs/I18N.md`` lists the terms and where each comes from).
"""

from service.i18n.catalogues import CATALOGUES
from service.i18n.middleware import LANG_PARAMETER, LanguageMiddleware, request_language
from service.i18n.negotiation import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, negotiate
from service.i18n.texts import problem_texts, rejection_text, text

__all__ = ["CATALOGUES", "DEFAULT_LANGUAGE", "LANG_PARAMETER", "SUPPORTED_LANGUAGES", "LanguageMiddleware",
           "negotiate", "problem_texts", "rejection_text", "request_language", "text"]
