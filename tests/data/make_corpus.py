"""Write the small synthetic news corpus the test suite trains and evaluates on.

    python tests/data/make_corpus.py            # rewrites tests/data/corpus/{train,val,test}.jsonl
    python tests/data/make_corpus.py --check    # exit 1 if the committed files differ from a fresh run

Made up from the word lists below with a fixed seed, never copied from a real corpus (the
CNN/DailyMail sample in ../shared must not enter git). Each line has the raw layout of
``../shared/data/cnndm/*.jsonl.gz``, which ``c2fsum prepare`` reads::

    {"id": 40 hex digits, "article": str, "highlights": "sentence .\\nsentence .\\n..."}

Every document is a story about a few named people, one place and one organisation, told in
sentences built from templates; its 3 or 4 highlights are short versions (subject, verb and
object, the adjuncts cut) of sentences of its own article, most of them from the first third,
as in the real data, so a model can learn to copy and compress. Articles run from about 150
to 1,300 words (a few over 400, as the 400-word cut must matter); some open with a CNN/DM
byline (``By . Name . PUBLISHED: ...``) or a ``(CNN) --`` dateline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "corpus"
SEED = 2017
SIZES = {"train": 40, "val": 10, "test": 10}

FIRST = (
    "John Mary David Sarah Michael Emma James Laura Robert Anna Thomas Claire Daniel Helen Peter Grace "
    "Mark Alice Paul Rachel Simon Julia Steven Karen Andrew Linda George Nancy Richard Susan Oliver Ruth"
).split()
LAST = (
    "Smith Jones Taylor Brown Wilson Evans Thomas Roberts Walker Wright Robinson Thompson White Hughes "
    "Edwards Green Hall Wood Harris Lewis Martin Jackson Clarke Clark Turner Hill Scott Cooper Morris Ward"
).split()
PLACES = (
    "Fargo|Leeds|Denver|Bristol|Atlanta|Glasgow|Phoenix|Cardiff|Boston|Norwich|Houston|Belfast|Seattle|"
    "Plymouth|Dallas|Sheffield|Portland|Brighton|Miami|Oxford|Chicago|Dundee|Memphis|York"
).split("|")
ORGS = (
    "the city council|the local police|the health department|the football club|the school board|"
    "the fire service|the county court|the hospital trust|the transport authority|the weather service|"
    "the energy company|the national museum|the university|the airline|the charity"
).split("|")
OUTLETS = "CNN|the Daily Mail|local reporters|the BBC|the Associated Press|a radio station".split("|")
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = "January February March April May June July August September October November December".split()

# topic -> (nouns, plural nouns, past-tense verbs, participles, adjectives)
TOPICS = {
    "crime": (
        "robbery suspect officer victim car shop warrant witness knife vehicle investigation arrest".split(),
        "officers suspects witnesses residents shoppers detectives charges cars neighbours".split(),
        "arrested charged questioned searched stopped chased identified released".split(),
        "arrested charged questioned injured found released held treated".split(),
        "serious violent shocking quiet busy dangerous rare".split(),
    ),
    "weather": (
        "storm flood snow wind road bridge river power line warning rainfall forecast".split(),
        "homes roads schools flights drivers families trees villages".split(),
        "closed flooded damaged cut blocked hit cancelled cleared".split(),
        "closed flooded damaged evacuated cancelled rescued stranded warned".split(),
        "heavy severe strong cold wet record worst".split(),
    ),
    "sport": (
        "match goal season striker coach trophy title league stadium injury game final".split(),
        "fans players goals points games supporters coaches tickets".split(),
        "won scored lost signed beat missed played celebrated".split(),
        "signed injured dropped praised named sold beaten picked".split(),
        "late stunning dramatic important young famous close".split(),
    ),
    "health": (
        "virus hospital patient doctor vaccine treatment clinic study nurse outbreak disease test".split(),
        "patients doctors nurses cases children members staff tests".split(),
        "treated tested warned diagnosed exposed studied found reported".split(),
        "exposed treated diagnosed tested infected vaccinated admitted discharged".split(),
        "rare common new dangerous serious early effective".split(),
    ),
    "business": (
        "company factory deal price profit market bank job plan shop office budget".split(),
        "workers jobs prices customers shares profits shops investors".split(),
        "announced cut raised bought sold opened closed agreed".split(),
        "announced cut raised sold opened closed approved delayed".split(),
        "new large small annual global local successful".split(),
    ),
}
FILLER = [
    "It is not yet clear what happened next .",
    "The details have not been made public .",
    "More information is expected later this week .",
    "Nobody was available for comment on {day} .",
]


def _person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


class Story:
    """The cast and vocabulary of one document; each method returns (sentence, its short form or None)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.topic = rng.choice(sorted(TOPICS))
        self.nouns, self.plurals, self.verbs, self.parts, self.adjs = TOPICS[self.topic]
        self.people = [_person(rng) for _ in range(3)]
        self.place = rng.choice(PLACES)
        self.org = rng.choice(ORGS)
        self.day = rng.choice(DAYS)

    def _pick(self, seq: list[str]) -> str:
        return self.rng.choice(seq)

    def action(self) -> tuple[str, str]:
        r = self.rng
        who = self._pick(self.people)
        core = f"{who} {self._pick(self.verbs)} the {self._pick(self.adjs)} {self._pick(self.nouns)}"
        tail = f"in {self.place} on {self._pick(DAYS)} after {r.randint(2, 90)} {self._pick(self.plurals)} arrived"
        return f"{core} {tail} .", f"{core} ."

    def count(self) -> tuple[str, str]:
        r = self.rng
        core = f"{r.randint(3, 400)} {self._pick(self.plurals)} were {self._pick(self.parts)} in {self.place}"
        tail = f"since {self._pick(MONTHS)} , according to {self.org}"
        return f"{core} {tail} .", f"{core} ."

    def org_said(self) -> tuple[str, str]:
        r = self.rng
        core = f"{self.org.capitalize()} said the {self._pick(self.nouns)} was {self._pick(self.parts)}"
        tail = f"on {self._pick(DAYS)} and that {r.randint(2, 30)} more {self._pick(self.plurals)} were expected"
        return f"{core} {tail} .", f"{core} ."

    def quote(self) -> tuple[str, str]:
        who = self._pick(self.people)
        what = f"the {self._pick(self.nouns)} and the {self._pick(self.plurals)}"
        said = f'" We are {self._pick(self.adjs)} about {what} , "'
        return f"{said} {who} told {self._pick(OUTLETS)} .", f"{who} spoke about the {self._pick(self.nouns)} ."

    def person(self) -> tuple[str, str]:
        r = self.rng
        who = self._pick(self.people)
        core = f"{who} , {r.randint(19, 78)} , was {self._pick(self.parts)} with {self._pick(self.plurals)}"
        tail = f"near the {self._pick(self.nouns)} in {self.place} last {self._pick(DAYS)}"
        return f"{core} {tail} .", f"{core} ."

    def money(self) -> tuple[str, str]:
        r = self.rng
        core = f"The {self._pick(self.nouns)} cost {self.org} about ${r.randint(2, 900)},{r.randint(100, 999)}"
        tail = f"in {r.randint(2009, 2015)} , twice as much as the {self._pick(self.nouns)}"
        return f"{core} {tail} .", f"{core} ."

    def filler(self) -> tuple[str, None]:
        return self._pick(FILLER).format(day=self._pick(DAYS)), None  # never a highlight

    def sentence(self) -> tuple[str, str | None]:
        kinds = [self.action, self.count, self.org_said, self.quote, self.person, self.money, self.filler]
        return self.rng.choices(kinds, weights=[5, 3, 3, 2, 3, 1, 1])[0]()


def _byline(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.2:
        h, m, d = rng.randint(1, 23), rng.randint(10, 59), rng.randint(1, 28)
        return (
            f"By . {_person(rng)} . PUBLISHED: . {h:02d}:{m:02d} EST, {d} {rng.choice(MONTHS)} 2013 . | . "
            f"UPDATED: . {h:02d}:{m:02d} EST, {d} {rng.choice(MONTHS)} 2013 . "
        )
    if kind < 0.35:
        return f"{rng.choice(PLACES).upper()} , England (CNN) -- "
    return ""


def document(rng: random.Random) -> dict[str, str]:
    """One raw document: an article of 8 to 60 sentences and 3 or 4 highlights drawn from it."""
    story = Story(rng)
    n = min(60, max(8, round(rng.lognormvariate(3.1, 0.55))))
    sents = [story.sentence() for _ in range(n)]
    article = _byline(rng) + " ".join(s for s, _ in sents)
    usable = [j for j, (_, short) in enumerate(sents) if short is not None]
    lead = usable[: max(4, n // 3)]
    picks = sorted(rng.sample(lead, min(len(lead), rng.randint(3, 4))))
    if rng.random() < 0.3:  # sometimes one highlight comes from later in the article
        picks[-1] = rng.choice([j for j in usable if j >= picks[-1]])
    highlights = "\n".join(str(sents[j][1]) for j in dict.fromkeys(picks))
    ident = hashlib.sha1(article.encode("utf-8")).hexdigest()
    return {"id": ident, "article": article, "highlights": highlights}


def corpus(seed: int = SEED) -> dict[str, list[dict[str, str]]]:
    rng = random.Random(seed)
    return {split: [document(rng) for _ in range(n)] for split, n in SIZES.items()}


def render(docs: list[dict[str, str]]) -> str:
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = ap.parse_args(argv)
    stale = []
    for split, docs in corpus().items():
        path, text = OUT / f"{split}.jsonl", render(docs)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
            continue
        OUT.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)}; run python tests/data/make_corpus.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
