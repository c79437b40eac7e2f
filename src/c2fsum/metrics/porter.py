"""Martin Porter's stemmer, ported line by line from the ``stem`` sub of ROUGE-1.5.5.pl.

ROUGE-1.5.5 (``-m``) stems with its own copy of Porter's Perl reference implementation
(Porter 1980, "An algorithm for suffix stripping", Program 14(3): 130-137), including
two details that NLTK's ``PorterStemmer`` does not share in any of its modes:

* step 2 uses the later ``bli -> ble`` and ``logi -> log`` rules of Porter's reference code;
* step 4 carries Chin-Yew Lin's 2004 change: ``-ment`` and ``-ent`` are tried one after the
  other on the already shortened word, so ``-ement`` is stripped only once.

Every regular expression below is the Perl one, and ``m.start()`` plays the role of Perl's
prematch variable ``$```. The tests compare this port with the Perl sub itself, extracted
from the shipped script, on every word type of the CNN/DailyMail development data.
"""

import re
from functools import lru_cache

__all__ = ["porter_stem"]

# The Perl `initialise` sub: consonant, vowel, their sequences and the measure tests.
_c = "[^aeiou]"  # consonant
_v = "[aeiouy]"  # vowel
_C = f"{_c}[^aeiouy]*"  # consonant sequence
_V = f"{_v}[aeiou]*"  # vowel sequence

_MGR0 = re.compile(f"^({_C})?{_V}{_C}")  # [C]VC... is m>0
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")  # [C]VC[V] is m=1
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")  # [C]VCVC... is m>1
_VOWEL_IN_STEM = re.compile(f"^({_C})?{_v}")
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$")  # the *o condition of the paper

_STEP1A_SSES_IES = re.compile(r"(ss|i)es$")
_STEP1A_S = re.compile(r"([^s])s$")
_STEP1B_EED = re.compile(r"eed$")
_STEP1B_ED_ING = re.compile(r"(ed|ing)$")
_STEP1B_AT_BL_IZ = re.compile(r"(at|bl|iz)$")
_STEP1B_DOUBLE = re.compile(r"([^aeiouylsz])\1$")
_STEP1C_Y = re.compile(r"y$")

_STEP2_LIST = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
    "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
    "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al",
    "iviti": "ive", "biliti": "ble", "logi": "log",
}  # fmt: skip
_STEP2 = re.compile(f"({'|'.join(_STEP2_LIST)})$")  # the Perl pattern: the suffixes in this order
_STEP3_LIST = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP3 = re.compile(f"({'|'.join(_STEP3_LIST)})$")
# CYL 02/14/2004: "-ment" and "-ent" left out of the first list, tried separately below.
_STEP4 = re.compile(r"(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")
_STEP4_MENT = re.compile(r"ment$")
_STEP4_ENT = re.compile(r"ent$")
_STEP4_ION = re.compile(r"(s|t)(ion)$")
_STEP5_E = re.compile(r"e$")
_STEP5_LL = re.compile(r"ll$")


def _shortened(w: str, suffix: re.Pattern[str], measure: re.Pattern[str], ending: dict[str, str] | None = None) -> str:
    """Porter's rule ``(measure) SUFFIX -> ENDING``: ``w`` with the ``suffix`` it ends in replaced by
    ``ending[suffix]`` (dropped without ``ending``) when the stem before it matches ``measure``."""
    if m := suffix.search(w):
        stem = w[: m.start()]
        if measure.search(stem):
            return stem + (ending[m.group(1)] if ending else "")
    return w


def _step1ab(w: str) -> str:
    """Plurals, then -eed / -ed / -ing (Porter steps 1a and 1b)."""
    if m := _STEP1A_SSES_IES.search(w):
        w = w[: m.start()] + m.group(1)
    elif m := _STEP1A_S.search(w):
        w = w[: m.start()] + m.group(1)
    if m := _STEP1B_EED.search(w):
        if _MGR0.search(w[: m.start()]):
            w = w[:-1]
    elif m := _STEP1B_ED_ING.search(w):
        stem = w[: m.start()]
        if _VOWEL_IN_STEM.search(stem):
            w = stem
            if _STEP1B_AT_BL_IZ.search(w):
                w += "e"
            elif _STEP1B_DOUBLE.search(w):
                w = w[:-1]
            elif _CVC.search(w):
                w += "e"
    return w


def _step1c23(w: str) -> str:
    """Final y -> i, then the double and single suffix maps (Porter steps 1c, 2 and 3)."""
    if m := _STEP1C_Y.search(w):
        stem = w[: m.start()]
        if _VOWEL_IN_STEM.search(stem):
            w = stem + "i"
    w = _shortened(w, _STEP2, _MGR0, _STEP2_LIST)
    return _shortened(w, _STEP3, _MGR0, _STEP3_LIST)


def _step4(w: str) -> str:
    """Strip -al, -ance, ..., -ment, -ent, -sion/-tion when m>1 (Porter step 4, CYL variant)."""
    w = _shortened(w, _STEP4, _MGR1)
    w = _shortened(w, _STEP4_MENT, _MGR1)
    if m := _STEP4_ENT.search(w):
        stem = w[: m.start()]
        if _MGR1.search(stem):
            w = stem
    elif m := _STEP4_ION.search(w):
        stem = w[: m.start()] + m.group(1)
        if _MGR1.search(stem):
            w = stem
    return w


def _step5(w: str) -> str:
    """Final -e and -ll (Porter step 5)."""
    if m := _STEP5_E.search(w):
        stem = w[: m.start()]
        if _MGR1.search(stem) or (_MEQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if _STEP5_LL.search(w) and _MGR1.search(w):
        w = w[:-1]
    return w


@lru_cache(maxsize=1 << 17)  # a word's stem never changes; papers repeat their words
def porter_stem(word: str) -> str:
    """Stem one lowercase word exactly as ROUGE-1.5.5.pl's ``stem`` sub does.

    Words shorter than 3 characters are returned unchanged; an initial ``y`` is treated as a
    consonant. Digits count as consonants, as in the Perl patterns.

    >>> [porter_stem(w) for w in ("caresses", "ponies", "days", "died", "they", "agreement")]
    ['caress', 'poni', 'dai', 'di', 'thei', 'agreem']
    """
    if len(word) < 3:
        return word
    initial_y = word.startswith("y")
    w = "Y" + word[1:] if initial_y else word  # Perl: ucfirst, so the patterns see a consonant
    w = _step5(_step4(_step1c23(_step1ab(w))))
    if initial_y:
        w = w[:1].lower() + w[1:]  # Perl: lcfirst
    return w
