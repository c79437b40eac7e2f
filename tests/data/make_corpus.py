"""Write the small synthetic news corpus the test suite trains and evaluates on.

    python tests/data/make_corpus.py            # rewrites tests/data/corpus/{train,val,test}.jsonl
    python tests/data/make_corpus.py --check    # exit 1 if the committed files differ from a fresh run

Made up from the word lists below with a fixed seed, never copied from a real corpus (the
CNN/DailyMail sample in ../shared must not enter git). Each line has the raw layout of
``../shared/data/cnndm/*.jsonl.gz``, which ``c2fsum prepare`` reads::

    {"id": 40 hex digits, "article": str, "highlights": "sentence .\\nsentence .\\n..."}

Every document is a story about a few named people, one place and one organisation, told in
sentences built from templates over topic word lists, a general lexicon drawn Zipf-distributed
and made-up names (a pool that recurs across documents, and names used once), so the vocabulary
has a long tail as real news does: about 3,200 word types in the 40 training documents, and the
tests' vocabulary caps (500 to 3,000 words) leave <unk>s. Its 3 or 4 highlights are short
versions (the trailing clause cut) of sentences of its own article, most of them from the first
third, one in four without its final full stop (as some in the real data), so a model can learn
to copy and compress. Articles run from about 170 to 1,000 words (under 6,000 characters; many
over 400, as the 400-word cut must matter); two in five open with a ``(CNN) --`` dateline and one
in five with a Daily Mail byline (``By . Name . PUBLISHED: ...``).
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
    "Mark Alice Paul Rachel Simon Julia Steven Karen Andrew Linda George Nancy Richard Susan Oliver Ruth "
    "Kevin Megan Brian Lucy Edward Sophie Frank Hannah Henry Jessica Jack Amy Samuel Chloe Patrick Diane"
).split()
PLACES = (
    "Fargo|Leeds|Denver|Bristol|Atlanta|Glasgow|Phoenix|Cardiff|Boston|Norwich|Houston|Belfast|Seattle|"
    "Plymouth|Dallas|Sheffield|Portland|Brighton|Miami|Oxford|Chicago|Dundee|Memphis|York"
).split("|")
ORG_KINDS = "council police trust club court hospital authority university charity group bank museum".split()
OUTLETS = "CNN|the Daily Mail|local reporters|the BBC|the Associated Press|a radio station".split("|")
ROLES = (
    "spokesman spokeswoman neighbour witness teacher nurse lawyer mother father driver officer student "
    "manager resident doctor engineer farmer pilot shopkeeper volunteer researcher councillor"
).split()
BUILDINGS = "centre hall station bridge school church stadium library market hotel clinic park".split()
DETS = "a their one another every this".split()
PREPS = "in at near outside across around".split()
# a general lexicon, drawn Zipf-distributed (earlier words more often) so the vocabulary has a
# long tail as real news does: the caps of 500 to 3,000 words in the tests then leave <unk>s
NOUNS = """
year time day week month people man woman child family group country city town area home house
school street road car report government service member case life world police court office law
plan money week night story question problem system company business market job price cost rate
issue idea decision change level part side team leader member community council party power war
event game season record result study research data evidence test sign picture photo video film
book letter message phone computer website internet account name age health doctor hospital body
heart head hand face eye voice mind death baby mother father son daughter brother sister friend
neighbour owner driver worker student teacher boss chief judge lawyer officer soldier victim
witness survivor suspect prisoner visitor customer fan player coach star singer actor artist
writer author reporter editor director manager minister president governor mayor senator king
queen prince princess river lake sea ocean beach island mountain hill valley forest field farm
garden park bridge tunnel station airport port village county state region border coast island
morning evening afternoon weekend summer winter spring autumn holiday birthday wedding funeral
party dinner lunch breakfast meal drink coffee tea water food bread meat fish fruit cake wine
dog cat horse bird cow sheep pig animal insect tree flower grass plant stone rock sand snow ice
fire smoke storm rain wind sun moon star sky cloud light dark noise sound music song dance show
concert festival exhibition gallery museum theatre cinema restaurant bar cafe pub shop store
market mall factory warehouse office tower building room kitchen bedroom bathroom garage roof
floor wall door window gate fence table chair bed desk box bag bottle glass cup plate knife
weapon gun bomb shot attack fight battle raid protest march rally strike crisis threat risk
danger accident crash collision injury wound illness disease virus pain treatment drug pill
operation surgery test result score goal point win defeat loss draw title cup medal prize award
contract deal agreement treaty vote election campaign speech debate interview statement claim
warning appeal request demand offer bid sale purchase payment fee fine tax debt loan budget
salary wage bonus profit income fund charity donation gift prize reward
""".split()
NOUNS = list(dict.fromkeys(NOUNS))
ADJECTIVES = """
new old good bad big small large little long short high low young great local national public
private early late hard easy strong weak important major full free single whole real true false
special possible clear recent certain personal open closed dark bright hot cold warm cool wet
dry quiet loud safe dangerous happy sad angry proud afraid tired busy empty rich poor cheap
expensive famous popular rare common normal strange serious simple difficult final main total
huge tiny heavy light fast slow quick sudden modern ancient fresh brave calm careful cruel
eager fair fierce gentle grand guilty honest innocent keen lucky mad nervous polite precious
proper rude secret severe silent smart smooth solid sour spare steady sticky strict sweet tense
thick thin tight tough ugly vast violent wild wise worried wooden yellow green blue red white
black brown golden silver royal military medical legal social political financial economic
""".split()
ADVERBS = (
    "quickly later earlier finally already recently still suddenly quietly publicly again soon often never once".split()
)
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = "January February March April May June July August September October November December".split()

# topic -> (nouns, plural nouns, past-tense verbs, participles, adjectives)
TOPICS = {
    "crime": (
        "robbery suspect officer victim car shop warrant witness knife vehicle investigation arrest "
        "burglary jury sentence trial prison theft".split(),
        "officers suspects witnesses residents shoppers detectives charges cars neighbours jurors".split(),
        "arrested charged questioned searched stopped chased identified released jailed convicted".split(),
        "arrested charged questioned injured found released held treated sentenced cleared".split(),
        "serious violent shocking quiet busy dangerous rare armed masked innocent".split(),
    ),
    "weather": (
        "storm flood snow wind road bridge river power line warning rainfall forecast tornado "
        "heatwave drought landslide hurricane".split(),
        "homes roads schools flights drivers families trees villages crops rivers".split(),
        "closed flooded damaged cut blocked hit cancelled cleared battered soaked".split(),
        "closed flooded damaged evacuated cancelled rescued stranded warned trapped delayed".split(),
        "heavy severe strong cold wet record worst freezing sudden unusual".split(),
    ),
    "sport": (
        "match goal season striker coach trophy title league stadium injury game final "
        "tournament penalty captain transfer referee".split(),
        "fans players goals points games supporters coaches tickets medals rivals".split(),
        "won scored lost signed beat missed played celebrated defended equalised".split(),
        "signed injured dropped praised named sold beaten picked suspended substituted".split(),
        "late stunning dramatic important young famous close unbeaten talented bitter".split(),
    ),
    "health": (
        "virus hospital patient doctor vaccine treatment clinic study nurse outbreak disease test "
        "surgery infection diet symptom therapy".split(),
        "patients doctors nurses cases children members staff tests infections visitors".split(),
        "treated tested warned diagnosed exposed studied found reported monitored screened".split(),
        "exposed treated diagnosed tested infected vaccinated admitted discharged monitored screened".split(),
        "rare common new dangerous serious early effective chronic mild contagious".split(),
    ),
    "business": (
        "company factory deal price profit market bank job plan shop office budget merger "
        "loan contract brand chain".split(),
        "workers jobs prices customers shares profits shops investors stores bonuses".split(),
        "announced cut raised bought sold opened closed agreed launched expanded".split(),
        "announced cut raised sold opened closed approved delayed launched rejected".split(),
        "new large small annual global local successful struggling profitable rival".split(),
    ),
    "politics": (
        "election vote minister law campaign party policy speech debate bill scandal poll "
        "referendum candidate mayor senator".split(),
        "voters ministers candidates protesters lawmakers officials members activists critics polls".split(),
        "approved rejected criticised proposed signed debated announced defended attacked won".split(),
        "elected approved rejected criticised proposed signed delayed challenged backed defeated".split(),
        "controversial popular unpopular narrow historic bitter fierce sweeping modest bold".split(),
    ),
    "science": (
        "telescope planet fossil experiment discovery species satellite robot rocket mission "
        "laboratory dinosaur galaxy gene study".split(),
        "scientists researchers astronomers engineers samples fossils stars insects cells volunteers".split(),
        "discovered launched measured observed found built tested recorded mapped analysed".split(),
        "discovered launched measured observed found built tested recorded named funded".split(),
        "ancient distant tiny huge rare remarkable unexpected frozen fragile mysterious".split(),
    ),
    "travel": (
        "flight airport cruise hotel beach passenger train ticket holiday island resort border "
        "tourist journey ferry".split(),
        "passengers tourists travellers flights trains visitors pilots crews holidays hotels".split(),
        "delayed cancelled diverted booked visited boarded landed stranded reopened grounded".split(),
        "delayed cancelled diverted booked grounded stranded rescued evacuated refunded reopened".split(),
        "busy crowded luxury remote popular cheap expensive scenic overnight packed".split(),
    ),
}
FILLER = [
    "It is not yet clear what happened next .",
    "The details have not been made public .",
    "More information is expected later this week .",
    "Nobody was available for comment on {day} .",
]
_ONSETS = "b br c ch d dr f g gr h k l m n p pr r s sh st t tr v w".split()
_VOWELS = "a e i o u a e o ai ea ou".split()
_CODAS = ["", "", "n", "r", "l", "s", "th", "nd", "rk", "ck", "m", "x"]
_SUFFIXES = ["", "", "ton", "ford", "well", "ley", "by", "ham", "wick", "son", "more", "field"]


def coin(rng: random.Random) -> str:
    """A made-up proper noun (a surname, a town, a street), e.g. ``Brailford`` or ``Thenwick``."""
    word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(rng.randint(1, 2)))
    return (word + rng.choice(_SUFFIXES)).capitalize()


_NOUN_ZIPF = [1 / (rank + 1) for rank in range(len(NOUNS))]
_ADJ_ZIPF = [1 / (rank + 1) for rank in range(len(ADJECTIVES))]
_POOL = [coin(random.Random(SEED + i)) for i in range(1500)]
_ZIPF = [1 / (rank + 1) for rank in range(len(_POOL))]


def name(rng: random.Random) -> str:
    """A proper noun: a made-up one of a pool that recurs across documents (Zipf-distributed, as
    names in the news are), or one never seen before."""
    return rng.choices(_POOL, weights=_ZIPF)[0] if rng.random() < 0.3 else coin(rng)


class Story:
    """The cast and vocabulary of one document; each method returns (sentence, its short form or None).

    A sentence is a core, a middle and a tail; its short form (a highlight) drops the tail, or
    keeps the whole sentence where the core and middle would be under 12 words.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.topic = rng.choice(sorted(TOPICS))
        self.nouns, self.plurals, self.verbs, self.parts, self.adjs = TOPICS[self.topic]
        self.people = [f"{rng.choice(FIRST)} {name(rng)}" for _ in range(3)]
        self.place = rng.choice(PLACES) if rng.random() < 0.5 else name(rng)
        self.org = f"the {name(rng)} {rng.choice(ORG_KINDS)}"
        self.day = rng.choice(DAYS)

    def _pick(self, seq: list[str]) -> str:
        return self.rng.choice(seq)

    def _general(self) -> str:
        """An adjective and a noun of the general lexicon, the earlier words far more often."""
        r = self.rng
        adj = r.choices(ADJECTIVES, weights=_ADJ_ZIPF)[0]
        return f"{adj} {r.choices(NOUNS, weights=_NOUN_ZIPF)[0]}"

    def _who(self) -> str:
        """One of the story's cast, or (more often) someone named once, as news copy does."""
        return self._pick(self.people) if self.rng.random() < 0.2 else f"{self._pick(FIRST)} {coin(self.rng)}"

    def _aside(self) -> str:
        """A tail clause that brings in new names, as news copy does; never in a highlight."""
        r = self.rng
        kind = r.randrange(4)
        if kind == 0:
            return f", said {r.choice(FIRST)} {name(r)} , a {self._pick(ROLES)} from {name(r)}"
        if kind == 1:
            return f"near {name(r)} {r.choice(['Street', 'Road', 'Avenue', 'Lane'])} in {name(r)}"
        if kind == 2:
            return f"at the {name(r)} {self._pick(BUILDINGS)} in {name(r)} , a {self._general()} {self._pick(ADVERBS)}"
        return f"after {r.randint(2, 90)} {self._pick(self.plurals)} arrived from {name(r)}"

    def _join(self, core: str, mid: str, tail: str) -> tuple[str, str]:
        short = f"{core} {mid} ."
        full = f"{core} {mid} {tail} ."
        return full, short if len(short.split()) >= 12 else full

    def action(self) -> tuple[str, str]:
        what = f"{self._pick(DETS)} {self._pick(self.adjs)} {self._pick(self.nouns)}"
        what += f" over {self._pick(DETS)} {self._general()}"
        core = f"{self._who()} {self._pick(self.verbs)} {what}"
        return self._join(core, f"{self._pick(PREPS)} {name(self.rng)} on {self._pick(DAYS)}", self._aside())

    def count(self) -> tuple[str, str]:
        r = self.rng
        where = f"{self._pick(PREPS)} {self.place}"
        core = f"{r.randint(3, 400)} {self._pick(self.plurals)} were {self._pick(self.parts)} {where}"
        return self._join(core, f"since {self._pick(MONTHS)} , {self._who()} of {self.org} said", self._aside())

    def org_said(self) -> tuple[str, str]:
        r = self.rng
        core = f"{self.org.capitalize()} said its {self._pick(self.nouns)} was {self._pick(self.parts)}"
        mid = (
            f"on {self._pick(DAYS)} and that {self._who()} expected {r.randint(2, 30)} more {self._pick(self.plurals)}"
        )
        return self._join(core, mid, self._aside())

    def quote(self) -> tuple[str, str]:
        who = self._who()
        what = f"{self._pick(DETS)} {self._pick(self.nouns)} and {self._pick(self.plurals)}"
        full = f'" We are {self._pick(self.adjs)} about {what} , " {who} told {self._pick(OUTLETS)} .'
        return full, f"{who} said they were {self._pick(self.adjs)} about {what} ."

    def person(self) -> tuple[str, str]:
        r = self.rng
        core = f"{self._who()} , {r.randint(19, 78)} , was {self._pick(self.parts)}"
        mid = f"with {self._pick(self.plurals)} near {self._pick(DETS)} {self._general()} in {self.place}"
        return self._join(core, mid, f"last {self._pick(DAYS)} {self._aside()}")

    def money(self) -> tuple[str, str]:
        r = self.rng
        core = f"The {self._pick(self.nouns)} cost {self.org} about ${r.randint(2, 900)},{r.randint(100, 999)}"
        what = f"{self._pick(DETS)} {self._pick(self.nouns)}"
        mid = f"in {r.randint(2009, 2015)} , twice what {self._who()} paid for {what}"
        return self._join(core, mid, self._aside())

    def background(self) -> tuple[str, str]:
        r = self.rng
        core = f"{self._pick(DETS).capitalize()} {self._general()} had been {self._pick(self.parts)} by {self._who()}"
        return self._join(
            core, f"for {r.randint(2, 30)} years before {self._pick(DETS)} {self._general()}", self._aside()
        )

    def filler(self) -> tuple[str, None]:
        return self._pick(FILLER).format(day=self._pick(DAYS)), None  # never a highlight

    def sentence(self) -> tuple[str, str | None]:
        kinds = [self.action, self.count, self.org_said, self.quote, self.person, self.money, self.background]
        return self.rng.choices([*kinds, self.filler], weights=[5, 3, 3, 2, 3, 1, 3, 1])[0]()


BYLINES = ("cnn", "", "published", "cnn", "")
"""The opening of document i is BYLINES[i % 5]: a ``(CNN) --`` dateline, a Daily Mail byline or none."""


def _byline(kind: str, rng: random.Random) -> str:
    if kind == "published":
        h, m, d = rng.randint(1, 23), rng.randint(10, 59), rng.randint(1, 28)
        when = f"{h:02d}:{m:02d} EST, {d} {rng.choice(MONTHS)} 2013"
        return f"By . {rng.choice(FIRST)} {name(rng)} . PUBLISHED: . {when} . | . UPDATED: . {when} . "
    if kind == "cnn":
        return f"{rng.choice(PLACES).upper()} , England (CNN) -- "
    return ""


def document(rng: random.Random, byline: str = "") -> dict[str, str]:
    """One raw document: an article of 8 to 40 sentences and 3 or 4 highlights drawn from it."""
    story = Story(rng)
    n = min(40, max(8, round(rng.lognormvariate(3.25, 0.55))))
    sents = [story.sentence() for _ in range(n)]
    article = _byline(byline, rng) + " ".join(s for s, _ in sents)
    usable = [j for j, (_, short) in enumerate(sents) if short is not None]
    lead = usable[: max(4, n // 3)]
    picks = sorted(rng.sample(lead, min(len(lead), rng.randint(3, 4))))
    if rng.random() < 0.3:  # sometimes one highlight comes from later in the article
        picks[-1] = rng.choice([j for j in usable if j >= picks[-1]])
    # some highlights lack their final full stop, as in the real data (here one in four)
    highlights = "\n".join(
        str(sents[j][1]).removesuffix(" .") if rng.random() < 0.25 else str(sents[j][1]) for j in dict.fromkeys(picks)
    )
    ident = hashlib.sha1(article.encode("utf-8")).hexdigest()
    return {"id": ident, "article": article, "highlights": highlights}


def corpus(seed: int = SEED) -> dict[str, list[dict[str, str]]]:
    rng = random.Random(seed)
    return {split: [document(rng, BYLINES[i % len(BYLINES)]) for i in range(n)] for split, n in SIZES.items()}


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
