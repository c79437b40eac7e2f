"""A rule-based pronoun resolver, across sentences only (BERKELEY's anaphoricity constraints).

Durrett et al. (2016) run a coreference system and require that a kept pronoun whose antecedent
lies in an earlier sentence either has that sentence kept or is rewritten as the antecedent's
mention. No coreference library runs offline here, so antecedents come from these rules, over
the shallow parse of :mod:`.units`:

* mentions are noun-phrase chunks (``B-NP`` ``I-NP`` ...), a possessive ``'s`` cut off, at most 6
  words; the mention's head is its last noun (``NN*``); a mention without a noun, or whose head
  is a time word (``friday``, ``year``), or that lies in brackets (the ``-lrb- cnn -rrb-`` of a
  dateline), is skipped;
* ``he``/``him``/``his``/``she``/``her``/``hers``: the nearest preceding mention that is person-like
  (a person noun such as ``mayor``, ``woman``, or a proper-noun head that the document marks as a
  person somewhere: before a verb of saying, ``smith said``; after a title, ``mr smith``; before
  an age, ``smith , ## ,``; so not ``harvard``), singular, and not of the other gender (``he``
  skips ``woman``, ``mother``, ...; ``she`` skips ``man``, ...);
* ``it``/``its``: the nearest preceding singular common-noun mention (``NN``) that is not a person
  noun, or an organization noun (``company``, ``club``, ...); ``it`` before a form of *be*,
  *have*, *will*, *seem*, *appear*, *emerge*, *remain*, *take* is taken as pleonastic
  (``it emerged that``, ``it 's just``) and left alone;
* no mention headed by an indefinite (``someone``, ``nothing``, ``one``) is an antecedent;
* ``they``/``them``/``their``: the nearest preceding plural mention (``NNS``/``NNPS``) or
  organization noun.

Pronouns inside quotations (:func:`in_quotes`) are left alone: there ``he`` is most often not
the speaker the nearest subject names (``' we know he wants to leave , ' angelici said``).

The antecedent: first a compatible mention earlier in the pronoun's own sentence (then it is
resolved inside the sentence and sets no constraint), else the nearest of the one, two or three
sentences before it that holds one, and there its *first* compatible mention (the subject, most
often: the salience preference of centering theory, rather than the last noun before the
pronoun). A pronoun with no antecedent in that window sets no constraint either. Rewriting:
the mention's words in place of a subject/object pronoun, the mention plus ``'s`` in place of
a possessive (``his``, ``its``, ``their``, ``her`` tagged ``PRP$``).
"""

from __future__ import annotations

from dataclasses import dataclass

from c2fsum.baselines.berkeley.units import OPEN, TIME_WORDS, SentenceUnits

MALE = frozenset({"he", "him", "his", "himself"})
FEMALE = frozenset({"she", "her", "hers", "herself"})
NEUTER = frozenset({"it", "its"})
PLURAL = frozenset({"they", "them", "their", "theirs"})
PRONOUNS = MALE | FEMALE | NEUTER | PLURAL
POSSESSIVE = frozenset({"his", "its", "their", "hers"})
MALE_NOUNS = frozenset(
    "man boy father son husband brother king prince uncle nephew grandfather dad gentleman mr sir".split()
)
FEMALE_NOUNS = frozenset(
    "woman girl mother daughter wife sister queen princess aunt niece grandmother mum mom lady mrs ms".split()
)
PERSON_NOUNS = (
    MALE_NOUNS
    | FEMALE_NOUNS
    | frozenset(
        """person mayor president minister officer player manager coach driver teacher doctor star
        singer actor actress spokesman spokeswoman chief director leader victim suspect student
        worker owner captain judge lawyer senator governor pilot soldier police officer teenager
        child baby passenger patient footballer striker defender midfielder goalkeeper chairman
        secretary author artist founder ceo boss winner champion resident neighbour neighbor friend
        partner partner fan model chef nurse firefighter detective sergeant""".split()
    )
)
ORG_NOUNS = frozenset(
    """company club team government police army party council firm group band university school
    court committee agency department ministry network league board airline bank union
    organisation organization charity hospital""".split()
)
SAY = frozenset("said says told added explained wrote asked insisted claimed admitted".split())
TITLES = frozenset("mr mrs ms dr mr. mrs. ms. dr. sir".split())
INDEFINITE = frozenset("someone something anyone anything everyone everything nobody nothing one".split())
PLEONASTIC_NEXT = frozenset(
    "is was 's has had will would seems seemed appears appeared emerged remains remained takes took".split()
)
WINDOW = 3
MAX_MENTION = 6


@dataclass
class Mention:
    """A noun phrase ``words[start:end]`` of sentence ``sent``, head word ``head`` with tag ``tag``."""

    sent: int
    start: int
    end: int
    head: str
    tag: str


@dataclass
class Pronoun:
    """A pronoun at token ``token`` of sentence ``sent`` whose antecedent ``antecedent`` lies in an
    earlier sentence; ``replacement``: the words written in its place when it is rewritten."""

    sent: int
    token: int
    word: str
    antecedent: Mention
    replacement: list[str]


def mentions(units: SentenceUnits, sent: int) -> list[Mention]:
    """The noun-phrase mentions of one sentence, left to right."""
    t = units.tagged
    bracketed = {j for sp in units.spans if t.words[sp.start] in OPEN for j in range(sp.start, sp.end)}
    out, i, n = [], 0, len(t.words)
    while i < n:
        if t.chunks[i] == "B-NP":
            k = i + 1
            while k < n and t.chunks[k] == "I-NP":
                k += 1
            e = k
            while e > i and (t.tags[e - 1] == "POS" or t.words[e - 1] in ("'s", "'")):
                e -= 1
            nouns = [j for j in range(i, e) if t.tags[j].startswith("NN")]
            ok = nouns and e - i <= MAX_MENTION and t.words[i] not in PRONOUNS and i not in bracketed
            if ok and t.words[nouns[-1]] not in TIME_WORDS:
                h = nouns[-1]
                out.append(Mention(sent, i, e, t.words[h], t.tags[h]))
            i = k
        else:
            i += 1
    return out


def person_names(doc: list[SentenceUnits]) -> set[str]:
    """Proper nouns the document itself marks as people: right before a verb of saying
    (``smith said``), after a title (``mr smith``), or before an age (``smith , ## ,``)."""
    out = set()
    for su in doc:
        w, tags = su.tagged.words, su.tagged.tags
        for i, tok in enumerate(w):
            if not tags[i].startswith("NNP"):
                continue
            nxt = w[i + 1] if i + 1 < len(w) else ""
            age = nxt == "," and i + 2 < len(w) and w[i + 2].strip("#") == "" and w[i + 2] != ""
            if nxt in SAY or (i > 0 and w[i - 1] in TITLES) or age:
                out.add(tok)
    return out


def compatible(pronoun: str, m: Mention, people: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether mention ``m`` may be the antecedent of ``pronoun`` (module docstring); ``people``:
    :func:`person_names`."""
    if m.head in INDEFINITE:
        return False
    person = m.head in PERSON_NOUNS or (m.tag == "NNP" and m.head in people)
    if pronoun in MALE:
        return person and m.tag != "NNPS" and m.head not in FEMALE_NOUNS and m.head not in ORG_NOUNS
    if pronoun in FEMALE:
        return person and m.tag != "NNPS" and m.head not in MALE_NOUNS and m.head not in ORG_NOUNS
    if pronoun in NEUTER:
        return (m.tag == "NN" and m.head not in PERSON_NOUNS) or m.head in ORG_NOUNS
    if pronoun in PLURAL:
        return m.tag in ("NNS", "NNPS") or m.head in ORG_NOUNS
    return False


def in_quotes(words: list[str]) -> list[bool]:
    """Per token, whether it lies inside a quotation: after an unclosed ````` or a sentence-opening
    ``'`` (the Daily Mail's quotes), before its ``''`` / ``'``."""
    out, inside = [], False
    for i, w in enumerate(words):
        if w == "``" or (w == "'" and i == 0):
            inside = True
        elif w in ("''", "'") and inside:
            inside = False
        out.append(inside)
    return out


def resolve(doc: list[SentenceUnits]) -> list[Pronoun]:
    """Every pronoun of the document whose antecedent lies in an earlier sentence (module docstring)."""
    ments = [mentions(u, j) for j, u in enumerate(doc)]
    people = person_names(doc)
    out = []
    for j, u in enumerate(doc):
        t = u.tagged
        quoted = in_quotes(t.words)
        for i, w in enumerate(t.words):
            if w not in PRONOUNS or not t.tags[i].startswith("PRP") or quoted[i]:
                continue
            if w == "it" and i + 1 < len(t.words) and t.words[i + 1] in PLEONASTIC_NEXT:
                continue  # "it emerged that", "it 's just ...": most often no antecedent
            if any(m.end <= i and compatible(w, m, people) for m in ments[j]):
                continue  # resolved inside its own sentence
            ante = None
            for jj in range(j - 1, max(j - 1 - WINDOW, -1), -1):
                found = [m for m in ments[jj] if compatible(w, m, people)]
                if found:
                    ante = found[0]
                    break
            if ante is None:
                continue
            words = doc[ante.sent].tagged.words[ante.start : ante.end]
            possessive = w in POSSESSIVE or (w == "her" and t.tags[i] == "PRP$")
            out.append(Pronoun(j, i, w, ante, list(words) + (["'s"] if possessive else [])))
    return out
