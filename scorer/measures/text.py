"""Text preparation and tokenisers of the ideal-answer text metrics.

Kept apart from the scoring code (as in ``rouge-score``): a metric asks for tokens, and the
rules that turn an answer into tokens live here, each in one small function.

* :func:`rouge_tokens`: what ROUGE-1.5.5 sees when BioASQ runs it (``rouge_visible_text``)
  cut into its tokens.
* :func:`mrc2018_normalize`: the official MRC2018 (DuReader) script's normalisation, for the
  character-level adapted ROUGE-L / BLEU-4.
* :func:`word_tokens`: the word tokens of the adapted ROUGE-L / BLEU-4 for English (BioASQ).
"""
from __future__ import annotations

import re

_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")
# A word is a maximal run of letters or digits (any script); every other visible character
# (punctuation, symbols) is a token by itself; whitespace only separates.
_WORD_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_")
# The MRC2018 script maps these full-width marks to ASCII.  It maps the left double quote
# twice and never the right one (a slip in the official script, reproduced here).
_MRC2018_PUNCTUATION = str.maketrans({
    "，": ",", "。": ".", "！": "!", "？": "?", "；": ";",
    "（": "(", "）": ")", "【": "[", "】": "]", "“": '"',
})


def rouge_visible_text(text: str) -> str:
    """The part of ``text`` that ROUGE-1.5.5 reads when BioASQ runs it.

    BioASQ writes each answer as ``text.encode('ascii', 'ignore')`` into one line of a SEE
    HTML file, and ROUGE-1.5.5 reads that line with the pattern ``id=N>([^<]+)``.  Hence:
    1. every non-ASCII character is dropped (``IL-1β`` -> ``IL-1``);
    2. only the first line counts (up to the first ``\\n``);
    3. the text stops at the first ``<`` (``p < 0.05 and ...`` -> ``p ``).
    """
    ascii_text = text.encode("ascii", "ignore").decode("ascii")
    first_line = ascii_text.split("\n", 1)[0]
    return first_line.split("<", 1)[0]


def rouge_tokens(text: str) -> list[str]:
    """ROUGE-1.5.5's tokens of ``text`` as BioASQ runs it (no stemming, stopwords kept).

    The visible text (:func:`rouge_visible_text`) is lower-cased and cut into the maximal
    runs of ``[a-z0-9]``; hyphens and all other punctuation separate tokens and vanish.
    ``"Alpha-synuclein (SNCA)."`` -> ``["alpha", "synuclein", "snca"]``.
    """
    return _ROUGE_TOKEN.findall(rouge_visible_text(text).lower())


def mrc2018_normalize(text: str) -> str:
    """The MRC2018 (DuReader) script's normalisation of an answer (or entity) string.

    Every whitespace character is removed, then the full-width marks ``，。！？；（）【】“``
    become ``,.!?;()[]"``.  Nothing else changes: case is kept, ``”`` stays full-width.
    The character-level metrics then compare the characters of the result.
    """
    return "".join(ch for ch in text if not ch.isspace()).translate(_MRC2018_PUNCTUATION)


def word_tokens(text: str) -> list[str]:
    """Word tokens of English answers for the adapted ROUGE-L / BLEU-4 (``tokens="word"``).

    The text is lower-cased (``str.lower``); a token is a maximal run of letters or digits
    (Unicode: ``α`` is a letter) or any single other non-space character (punctuation and
    symbols each count as one token); whitespace only separates.
    ``"IL-1β binds, e.g. IL1R1."`` -> ``["il", "-", "1β", "binds", ",", "e", ".", "g", ".",
    "il1r1", "."]``.  Punctuation is kept as tokens because the adapted metrics' paper counts
    it (its worked examples reproduce only that way).
    """
    return _WORD_TOKEN.findall(text.lower())
