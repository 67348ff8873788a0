"""A small English stemmer: ``creates``, ``created``, ``creating`` and ``creation`` all
become ``creat``, so a query finds a tool however either of them inflects a word.

Stems are keys, not words: the only promise is that the forms of one word meet and
that unrelated words stay apart. It follows the shape of Porter's algorithm (a word's
*measure*, the number of vowel-consonant runs, decides whether a suffix or a final
``e`` goes) with a much smaller rule set, chosen for the words tool descriptions and
requests use, and no data files. Deterministic and pure: the same word always gives
the same stem, whatever the platform.

Order of the steps:

1. plurals and third persons (``queries`` → ``query``, ``matches`` → ``match``), then
   British ``-ise``/``-yse`` spelled ``-ize``/``-yze`` (``summarised``, ``analyse``);
2. ``-ing`` and ``-ed`` (``running`` → ``run``, ``sharing`` → ``share``);
3. a few derivations that tool requests use: ``-fication`` → ``-fy``,
   ``-ization`` → ``-ize``, ``-ction`` → ``-ct`` (``reaction`` → ``react``),
   ``-ence``/``-ance`` after a long stem (``recurrence`` → ``recur``, ``performance``
   → ``perform``; not ``sentence``, ``instance``), ``-ation`` → ``-ate``, ``-etion`` →
   ``-ete``, ``-ment`` (``payment`` → ``pay``), ``-val``/``-wal`` (``removal`` →
   ``remove``) and ``-ly`` (``weekly`` → ``week``);
4. tidy: a final ``e`` goes from long stems, a final double consonant (not ``l``,
   ``s`` or ``z``) becomes single, so ``add``/``added`` and ``set``/``setting`` meet.
"""

from __future__ import annotations

_VOWELS = frozenset("aeiou")

# Words the suffix rules would damage, kept as they are (each a real collision or a
# word tool catalogs use: ``news`` is not ``new``, ``comment`` is not ``com``).
_KEEP_TEXT = """alias always analysis atlas bias canvas chaos comment document element gas
    interval lens moment news perhaps segment series species status this
    """
_KEEP = frozenset(_KEEP_TEXT.split())

# Irregular forms worth meeting their verb; each maps to the verb before stemming.
_IRREGULAR = {
    "cancellation": "cancel",
    "cancelled": "cancel",
    "cancelling": "cancel",
    "installation": "install",
    "connection": "connect",
    "insertion": "insert",
    "selection": "select",
    "deletion": "delete",
    "completion": "complete",
    "paid": "pay",
}


def stem(word: str) -> str:
    """The stem of one lower-case word (words of three letters or fewer, and words with
    anything but letters, come back unchanged)."""
    if len(word) <= 3 or not word.isalpha() or word in _KEEP:
        return word
    word = _american(_plural(_IRREGULAR.get(word, word)))
    if word in _KEEP:
        return word
    word = _inflection(word)
    if word in _KEEP:
        return word
    return _tidy(_derivation(word))


def _measure(stem: str) -> int:
    """Porter's *m*: how many vowel-consonant runs ``stem`` has (``tr``=0, ``tree``=0,
    ``trouble``=1, ``private``=2)."""
    runs, previous_vowel = 0, False
    for i, ch in enumerate(stem):
        vowel = ch in _VOWELS or (ch == "y" and i > 0 and stem[i - 1] not in _VOWELS)
        if previous_vowel and not vowel:
            runs += 1
        previous_vowel = vowel
    return runs


def _has_vowel(stem: str) -> bool:
    return any(ch in _VOWELS for ch in stem) or "y" in stem[1:]


def _short(stem: str) -> bool:
    """Consonant-vowel-consonant at the end, the last not ``w``, ``x`` or ``y`` (``hop``,
    ``shar``): such a stem wants its ``e`` back (``shar`` → ``share``)."""
    if len(stem) < 3:
        return False
    a, b, c = stem[-3], stem[-2], stem[-1]
    return a not in _VOWELS and b in _VOWELS and c not in _VOWELS and c not in "wxy"


def _plural(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zes", "uses")) and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _inflection(word: str) -> str:
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("eed"):
        return word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            if len(base) >= 3 and _has_vowel(base):
                return _restore(base)
            if len(base) == 2 and base[0] in _VOWELS and base[1] not in _VOWELS:
                return base + "e"  # using, used -> use
            return word
    return word


def _restore(base: str) -> str:
    """What ``-ing``/``-ed`` left: undouble (``runn``), or give a short stem its ``e``."""
    if base.endswith(("at", "bl", "iz")):
        return base + "e"
    if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeioulsz":
        return base[:-1]
    if _measure(base) == 1 and _short(base):
        return base + "e"
    return base


def _derivation(word: str) -> str:
    if word.endswith("fication"):
        return word[:-8] + "fy"
    if word.endswith("ization"):
        return word[:-7] + "ize"
    if word.endswith("ction") and len(word) - 5 >= 2:
        return word[:-3]
    if word.endswith(("ence", "ance")) and _measure(word[:-4]) > 1:
        return word[:-4]
    for suffix, replacement in (("etion", "ete"), ("ation", "ate")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + replacement
    if word.endswith("ment") and len(word) - 4 >= 3:
        return word[:-4]
    if word.endswith(("val", "wal")) and len(word) - 2 >= 4:
        return word[:-2] + "e"
    if word.endswith("ly") and len(word) - 2 >= 4 and word[-3] not in _VOWELS:
        return word[:-2]
    return word


_BRITISH = tuple(
    (f"{b}{ending}", f"{a}{ending}")
    for b, a in (("is", "iz"), ("ys", "yz"))
    for ending in ("ation", "ing", "ed", "e")
)


def _american(word: str) -> str:
    """British ``-ise``/``-yse`` spellings as American ones (``summarise``,
    ``organisation``, ``analyse``)."""
    for british, american in _BRITISH:
        if word.endswith(british) and len(word) - len(british) >= 3:
            return word[: -len(british)] + american
    return word


def _tidy(word: str) -> str:
    if word.endswith("ate") and _measure(word[:-3]) > 1:
        return word[:-3]  # invitation -> invitate -> invit, as invite -> invit
    if word.endswith("e") and len(word) > 3:
        base = word[:-1]
        if _measure(base) > 1 or (_measure(base) == 1 and not _short(base)):
            word = base
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeioulsz":
        word = word[:-1]
    return word
