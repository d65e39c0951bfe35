#!/usr/bin/env python3
"""Generate data/tinyplays.txt, a small corpus of original plays for char-level models.

The text is produced by a hand-written grammar (below) driven by random.Random(SEED),
so running this script again writes a byte-identical file. Stdlib only.

    python data/make_tinyplays.py            # writes data/tinyplays.txt
    python data/make_tinyplays.py --check    # regenerates in memory, compares with the file

The plays are set in Quillhaven, an invented harbour town. Every play has a title, a
list of persons, acts and scenes; every scene has one place, one time of day and one
topic, and its speeches stay on that topic, answer each other's questions and open and
close with greetings and farewells, so the text has local structure worth learning.
"""

import hashlib
import os
import random
import re
import sys

# the tools' command line, as data/prepare.py uses it: one-line errors, Ctrl-C, writing aside
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))
from common import ArgumentParser, UserError, aside, check_output, command  # noqa: E402

SEED = 1729
TARGET_BYTES = 500_000          # stop after the play that crosses this size
WRAP = 72                       # longest speech line
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "tinyplays.txt")
TOWN = "Quillhaven"

# ---------------------------------------------------------------------------
# The cast
# key: (gender, name in the persons list, description, informal vocatives,
#       formal vocatives, third-person references, workplace for farewells,
#       names that mean this person when they appear in a sentence)
# ---------------------------------------------------------------------------

CAST = {
    "MARGERY": ("f", "MARGERY BELL", "a baker on Fish Street",
                ["Margery"], ["Mrs Bell"], ["Margery", "Mrs Bell"], "the bakery",
                ["Margery", "Mrs Bell", "the baker"]),
    "TOBIAS": ("m", "TOBIAS", "apprentice to the baker",
               ["Tobias", "Toby"], ["Tobias"], ["Tobias", "young Tobias"], "the bakery",
               ["Tobias", "Toby"]),
    "QUENTIN": ("m", "QUENTIN HALE", "Mayor of Quillhaven",
                ["Quentin", "Mr Mayor"], ["Mr Mayor", "Mr Hale"], ["the mayor", "Quentin Hale"],
                "the town hall", ["Quentin", "Mr Hale", "the mayor", "Mayor"]),
    "ZELDA": ("f", "ZELDA HALE", "the mayor's daughter",
              ["Zelda"], ["Miss Zelda"], ["Zelda", "the mayor's daughter"], "the house",
              ["Zelda"]),
    "JASPER": ("m", "JASPER KNOX", "captain of the ferry Jenny Wren",
               ["Jasper", "Captain"], ["Captain", "Captain Knox"], ["Captain Knox", "Jasper"],
               "the ferry", ["Jasper", "Captain Knox", "the captain", "Knox"]),
    "XAVIER": ("m", "XAVIER", "a deckhand on the ferry",
               ["Xavier", "lad"], ["Xavier"], ["Xavier", "young Xavier"], "the ferry",
               ["Xavier"]),
    "AGATHA": ("f", "AGATHA VANE", "keeper of the light on Jackdaw Point",
               ["Agatha"], ["Mrs Vane"], ["Agatha", "Mrs Vane"], "the lamp",
               ["Agatha", "Mrs Vane", "the keeper"]),
    "WILLOW": ("f", "WILLOW VANE", "granddaughter to the keeper",
               ["Willow", "little one"], ["Willow"], ["Willow", "little Willow"],
               "the lighthouse", ["Willow"]),
    "OSWALD": ("m", "OSWALD TREW", "a fisherman",
               ["Oswald"], ["Mr Trew"], ["Oswald", "Oswald Trew"], "my nets",
               ["Oswald", "Mr Trew"]),
    "PRUDENCE": ("f", "PRUDENCE PYM", "the schoolmistress",
                 ["Prudence", "Miss Pym"], ["Miss Pym"], ["Miss Pym"], "the schoolroom",
                 ["Prudence", "Miss Pym"]),
    "FELIX": ("m", "FELIX TREW", "son of Oswald",
              ["Felix"], ["Felix"], ["Felix", "young Felix"], "my mother",
              ["Felix"]),
    "IVY": ("f", "IVY MAJOR", "a schoolgirl",
            ["Ivy"], ["Ivy"], ["Ivy", "Ivy Major"], "my mother", ["Ivy"]),
    "HUGO": ("m", "HUGO FLINT", "the blacksmith",
             ["Hugo"], ["Mr Flint"], ["Hugo", "Hugo Flint"], "the forge",
             ["Hugo", "Mr Flint", "the blacksmith"]),
    "ROSALIND": ("f", "ROSALIND GRAY", "landlady of the Gull and Anchor",
                 ["Rosalind"], ["Mrs Gray"], ["Rosalind", "Mrs Gray"], "the inn",
                 ["Rosalind", "Mrs Gray"]),
    "NED": ("m", "NED", "potboy at the Gull and Anchor",
            ["Ned"], ["Ned"], ["Ned"], "the inn", ["Ned"]),
    "YVONNE": ("f", "YVONNE ASHBY", "the postmistress",
               ["Yvonne"], ["Mrs Ashby"], ["Yvonne", "Mrs Ashby"], "the post office",
               ["Yvonne", "Mrs Ashby", "the postmistress"]),
    "KIT": ("f", "KIT", "a messenger girl",
            ["Kit"], ["Kit"], ["Kit"], "the post office", ["Kit"]),
    "LUCAS": ("m", "LUCAS WEBB", "the town doctor",
              ["Doctor", "Lucas"], ["Doctor", "Doctor Webb"], ["Doctor Webb", "the doctor"],
              "my patients", ["Lucas", "Doctor Webb", "the doctor"]),
    "BEATRICE": ("f", "BEATRICE WEBB", "a seamstress, sister to the doctor",
                 ["Beatrice"], ["Miss Webb"], ["Beatrice", "Miss Webb"], "my sewing",
                 ["Beatrice", "Miss Webb"]),
    "GIDEON": ("m", "GIDEON CRANE", "harbour master",
               ["Gideon"], ["Mr Crane"], ["Gideon", "Gideon Crane"], "the harbour office",
               ["Gideon", "Mr Crane", "the harbour master"]),
    "ESTHER": ("f", "ESTHER OAKES", "a widow who keeps bees",
               ["Esther"], ["Mrs Oakes"], ["Esther", "old Mrs Oakes"], "my bees",
               ["Esther", "Mrs Oakes"]),
    "URSULA": ("f", "URSULA PRICE", "a net mender",
               ["Ursula"], ["Mrs Price"], ["Ursula"], "the net loft",
               ["Ursula", "Mrs Price"]),
    "VICTOR": ("m", "VICTOR DAX", "a merchant from Kingsbridge",
               ["Mr Dax", "Victor"], ["Mr Dax", "sir"], ["Mr Dax", "Victor Dax"], "my papers",
               ["Victor", "Mr Dax"]),
    "CLEMENT": ("m", "CLEMENT YATES", "the parson",
                ["Parson", "Clement"], ["Parson", "Mr Yates"], ["the parson", "Mr Yates"],
                "the chapel", ["Clement", "Mr Yates", "the parson", "Parson"]),
    "DORA": ("f", "DORA QUIGLEY", "clerk to the mayor",
             ["Dora"], ["Miss Quigley"], ["Dora", "Miss Quigley"], "the town hall",
             ["Dora", "Miss Quigley"]),
    "SAMUEL": ("m", "SAMUEL JUDD", "an old sailor",
               ["Samuel", "old friend"], ["Mr Judd"], ["old Samuel", "Samuel"], "my fireside",
               ["Samuel", "Mr Judd", "old Sam"]),
}
CAST_ORDER = list(CAST)
YOUNG = ["FELIX", "IVY", "WILLOW", "KIT", "TOBIAS", "NED", "XAVIER", "ZELDA"]
CHILDREN = ["FELIX", "IVY", "WILLOW", "KIT"]

# how relatives address and mention each other: (speaker, about) -> words
RELATIVE_VOCS = {
    ("ZELDA", "QUENTIN"): ["Father"], ("QUENTIN", "ZELDA"): ["my dear", "Zelda"],
    ("FELIX", "OSWALD"): ["Father", "Dad"], ("OSWALD", "FELIX"): ["son", "Felix"],
    ("WILLOW", "AGATHA"): ["Grandmother", "Gran"], ("AGATHA", "WILLOW"): ["child", "Willow"],
    ("LUCAS", "BEATRICE"): ["Bea", "Beatrice"], ("BEATRICE", "LUCAS"): ["Lucas"],
    ("TOBIAS", "MARGERY"): ["Mrs Bell"], ("NED", "ROSALIND"): ["Mrs Gray", "missus"],
    ("XAVIER", "JASPER"): ["Captain", "skipper"], ("KIT", "YVONNE"): ["Mrs Ashby"],
}
RELATIVE_WORDS = {
    ("ZELDA", "QUENTIN"): ["Father"], ("FELIX", "OSWALD"): ["Father"],
    ("WILLOW", "AGATHA"): ["Grandmother"], ("LUCAS", "BEATRICE"): ["my sister"],
    ("BEATRICE", "LUCAS"): ["my brother"],
}

# what each person says about themselves and their work
ROLE_LINES = {
    "MARGERY": [
        "I was up at four to light the ovens, and my back knows it.",
        "The {loaves} will not rise properly in this damp.",
        "I have {number} loaves promised to the Gull and Anchor by noon.",
        "Flour has gone up again; I shall have to charge more for a {loaf}.",
        "Tobias burnt a whole tray of {cakes} yesterday, bless him.",
        "Nobody in {town} bakes {cakes} the way my mother did.",
        "If I sell out of {loaves} by ten, it is a good day.",
        "There is always a warm {bun} for anyone who helps me carry sacks.",
        "I have flour in my hair, flour in my ears and flour in my soul.",
        "My mother ran the bakery before me, and her mother before her.",
    ],
    "TOBIAS": [
        "Mrs Bell says I knead like a man wrestling an eel.",
        "I carried {number} sacks of flour up the stairs this morning.",
        "One day I shall have a bakery of my own, with a blue door.",
        "I only ate one {bun}, and it was a broken one.",
        "My arms are white to the elbow with flour.",
        "I was meant to deliver the bread, but I stopped to watch the boats.",
        "Ned at the inn owes me a penny, and he knows it.",
        "I can carry a tray on my head from here to the quay without dropping a crumb.",
        "I have learned to make {cakes}, and only burnt the first batch.",
    ],
    "QUENTIN": [
        "As mayor, I must think of the whole town, not just one street.",
        "The council meets on {day}, and I shall raise the matter then.",
        "I have signed more papers this week than in the whole of last year.",
        "My chain of office weighs more than a bucket of coal.",
        "People forget that a mayor has to sleep sometimes.",
        "Dora keeps my diary, and I do as I am told.",
        "The town purse is thinner than a winter cat.",
        "I was a fisherman's son before I was ever a mayor.",
        "My door is open to every man and woman in {town}, most days.",
    ],
    "ZELDA": [
        "Father thinks I should learn the piano; I would rather learn the tides.",
        "I can tie a bowline faster than any boy on the quay.",
        "One day I will sail past Zephyr Rocks and not look back.",
        "I have read every book about ships in the {town} library, all six of them.",
        "Father says a mayor's daughter should not climb the rigging.",
        "I have been saving my pennies for a boat of my own.",
        "Captain Knox says I have the hands of a sailor.",
        "I am tired of being told what a young lady ought to do.",
        "I know the name of every star a sailor steers by.",
    ],
    "JASPER": [
        "I have crossed to Oxley Island {number} times this year, and the sea still surprises me.",
        "The old engine coughs like a sick dog, but she never quite stops.",
        "The {ferry_time} ferry goes whether the passengers are ready or not.",
        "A captain who does not respect the tide will not be a captain long.",
        "Xavier is a good lad, but he dreams on deck.",
        "I have not missed a crossing in eleven years, save for the great gale.",
        "My ferry is called the Jenny Wren, and she is older than I am.",
        "Give me a calm sea and a full boat and I ask for nothing more.",
        "I can tell the weather by the colour of the water at the harbour mouth.",
    ],
    "XAVIER": [
        "I coil the ropes, I mop the deck, and I take the tickets.",
        "The captain says I dream on deck, but I keep my eyes on the water.",
        "I was sick over the side on my first crossing, and on the second.",
        "One day I will have a boat with my own name painted on the bow.",
        "My mother sends me off every morning with a cold pie and a warning.",
        "I know every buoy between here and Oxley Island by its colour.",
        "The passengers ask me the same questions every single day.",
        "I can see the lighthouse from the wheelhouse at night; it feels like home.",
    ],
    "AGATHA": [
        "I have kept the light on Jackdaw Point for thirty-one years.",
        "The lamp must be trimmed at sunset, whatever else happens.",
        "Every ship that passes the point is my business, whether it knows it or not.",
        "There are one hundred and twelve steps up the tower; I count them every night.",
        "Willow has eyes as sharp as a gull's.",
        "I trust the lamp more than I trust most people.",
        "The oil comes by ship from Kingsbridge, and it is always late.",
        "Up on the gallery, the wind tells you what is coming.",
        "I have not slept a whole night through since my husband died.",
    ],
    "WILLOW": [
        "Grandmother lets me polish the big lens if I wash my hands first.",
        "I counted {number} ships from the gallery yesterday.",
        "I am not afraid of the dark, only of the cellar.",
        "I found a crab as big as my hand on the rocks.",
        "Miss Pym says my spelling is better than my sums.",
        "Felix says there are seals at Zephyr Rocks, but I have never seen one.",
        "When I grow up I shall keep the light, just like Grandmother.",
        "I have a secret box under my bed, and nobody knows what is in it.",
    ],
    "OSWALD": [
        "The mackerel have gone deep this year, and I cannot think why.",
        "I was out before dawn and came back with hardly a basket.",
        "My father fished these waters, and his father before him.",
        "A fisherman reads the sky the way the parson reads his Bible.",
        "My nets are more holes than net these days.",
        "Felix wants to come out with me, but he is too young yet.",
        "I can smell rain coming an hour before it arrives.",
        "The boat needs tar and a new oar, and I have money for neither.",
    ],
    "PRUDENCE": [
        "I have twenty-three children and only nineteen slates.",
        "Felix has a quick mind, if only he would use it in class.",
        "The schoolroom roof leaks onto the map of the world, right over Africa.",
        "I teach the children their letters, and they teach me patience.",
        "A child who can read can go anywhere, even without leaving {town}.",
        "I mark the copybooks by candlelight, with a cup of cold tea.",
        "I came to {town} for one year, and I have stayed for nine.",
        "There is no noise like a schoolroom on the last day before the holidays.",
    ],
    "FELIX": [
        "I am nearly ten, and that is old enough for most things.",
        "I can skim a stone seven times across the harbour.",
        "Father says I may go out in the boat next summer.",
        "I did my sums, but the goat ate half the page.",
        "Ivy and I have a den in the dunes, but it is a secret.",
        "I saw a seal at Zephyr Rocks, and nobody believes me.",
        "I am going to be a captain like Captain Knox, only with a bigger boat.",
        "Miss Pym kept me in after school again, and it was not even my fault.",
    ],
    "IVY": [
        "I know the names of all the boats in the harbour.",
        "Felix thinks he is brave, but he screamed at a crab.",
        "My mother says I talk more than the gulls.",
        "I want to be a doctor like Doctor Webb, and carry a black bag.",
        "I have a jar of sea glass, green and blue and one piece of red.",
        "I won the spelling prize last year, and I mean to win it again.",
        "If you lie on the harbour wall you can hear the water knock.",
        "I am allowed to stay up late on festival night.",
    ],
    "HUGO": [
        "I have shod every horse in {town}, and most of them twice.",
        "The forge has been lit since six, and it will burn till dusk.",
        "Iron is honest; it only does what you make it do.",
        "I made the new hinges for the chapel door, and the parson still owes me.",
        "A good hammer is worth more than a bad friend.",
        "My hands have been burnt so often they barely feel the heat now.",
        "Bring me the broken part and I will have it right by {day}.",
        "I once mended a cart wheel, a kettle and a church gate in one morning.",
    ],
    "ROSALIND": [
        "The Gull and Anchor has stood on this corner for two hundred years.",
        "I know every secret in {town}; they all come out after the second cider.",
        "The barrels came in this morning, and Ned nearly dropped one.",
        "I keep a room ready upstairs for anyone caught by the tide.",
        "A warm fire and a clean glass, that is all an inn needs.",
        "My late husband painted the sign, and nobody has touched it since.",
        "I will not serve anyone who spits on my floor.",
        "The stew has been on since breakfast; it is thick enough to stand a spoon in.",
    ],
    "NED": [
        "I wash the glasses, I sweep the floor, and I listen to everything.",
        "Mrs Gray says I am the slowest potboy in the county.",
        "I heard a fisherman say there were whales off Oxley Island.",
        "I carried the barrels up from the cellar, all {number} of them.",
        "Old Samuel tells the same story every night, and I still like it.",
        "Tobias owes me a bun, but he says I owe him a penny.",
        "When the inn is full, you cannot hear yourself think.",
        "I saved a whole shilling this month, and I am keeping it in my boot.",
    ],
    "YVONNE": [
        "Every letter in {town} passes through my hands, and I never read a single one.",
        "The mail coach was late again; the road from Kingsbridge is all mud.",
        "I sorted {number} letters this morning before the sun was up.",
        "Stamps have gone up by a penny, and people blame me for it.",
        "Kit carries the letters up the hill, bless her quick feet.",
        "I keep the parcels behind the counter, where no one can poke at them.",
        "There is a parcel waiting for the mayor that smells of oranges.",
        "A postmistress must have a good memory and a closed mouth.",
    ],
    "KIT": [
        "I ran from the post office to the lighthouse in nine minutes flat.",
        "I carry letters up the hill, and sometimes down again.",
        "I have worn through two pairs of boots since spring.",
        "Everyone gives me a message, and nobody gives me a biscuit.",
        "I know a short cut through Esther's orchard, but do not tell her.",
        "I am the fastest runner in {town}, and that is a fact.",
        "Mrs Ashby pays me a penny a letter, and two if it is raining.",
        "I have seen inside nearly every kitchen in the town.",
    ],
    "LUCAS": [
        "I have been up half the night with a baby who would not wait for morning.",
        "Rest, broth and clean water cure more than any bottle of mine.",
        "My bag is heavier than it looks; it is full of worries.",
        "I walked to Vexley and back before breakfast to see a patient.",
        "My sister keeps my accounts, or I would have starved by now.",
        "Half of {town} pays me in eggs and the other half in promises.",
        "Wash your hands, keep warm, and send for me if the fever rises.",
        "A doctor learns more from listening than from any book.",
    ],
    "BEATRICE": [
        "I have three dresses to finish before the end of the month.",
        "My brother would forget his own head if I did not remind him.",
        "A good hem takes patience, and I have plenty of that.",
        "I sewed the new sails for the Jenny Wren last winter.",
        "I cannot abide a crooked seam or a crooked answer.",
        "My needle has been busier this month than the chapel bell.",
        "I keep pins in my mouth, so forgive me if I mumble.",
        "Every button in {town} has been through my hands at some time.",
    ],
    "GIDEON": [
        "No boat leaves this harbour without my say-so.",
        "I log every vessel in and out, and the book never lies.",
        "The harbour mouth silts up every winter, and every spring we dredge it.",
        "I have been harbour master for twenty years, and a sailor for twenty before that.",
        "The tide turns at {clock} today; mark it.",
        "I keep a spyglass at my window, and I use it.",
        "A harbour is only as safe as the people who work in it.",
        "The quay needs new stones, and the council needs to pay for them.",
    ],
    "ESTHER": [
        "My bees know me better than my neighbours do.",
        "I have lived on Juniper Lane for sixty years, and I am not leaving now.",
        "The apple trees were planted by my husband the year we married.",
        "Honey, cake and a good fire; what more could anyone want?",
        "I talk to my bees every morning and tell them the news.",
        "My knees are old, but my eyes are as good as ever.",
        "Children steal my apples, and I pretend not to notice.",
        "I have buried two husbands and a very good dog.",
    ],
    "URSULA": [
        "I mend the nets, and while I mend them I hear a great deal.",
        "My fingers are quicker than any young girl's, whatever they say.",
        "I do not gossip; I simply pass on what is true.",
        "Every net in the harbour has a knot of mine in it somewhere.",
        "I saw it all from the window of the net loft.",
        "The Jenner boys tear their nets on purpose, just to come and talk to me.",
        "I have a good ear and a long memory, and people know it.",
        "Tar on my hands, salt in my hair; that is a net mender's life.",
    ],
    "VICTOR": [
        "In Kingsbridge we do business by the clock, not by the tide.",
        "I have come to {town} to buy fish, salt, and perhaps a little land.",
        "My coat cost more than most boats in this harbour, I dare say.",
        "I am a plain man of business, whatever the gossips say.",
        "The inn is comfortable, though the bed is somewhat short.",
        "I have an eye for a bargain and a nose for trouble.",
        "The railway will come here one day, and I mean to be ready for it.",
        "I find the people of {town} very friendly, and very curious.",
    ],
    "CLEMENT": [
        "I have preached in this chapel for fifteen years, and the pews are still hard.",
        "I visit the sick on Tuesdays and the quarrelsome on Thursdays.",
        "My sermon on Sunday will be about patience, as it often is.",
        "The chapel roof needs slates, and the collection box needs coins.",
        "I was a poor sailor before I was a poor parson.",
        "I try to think well of everyone, though some make it difficult.",
        "The choir sang sweetly on Sunday, apart from the tenor.",
        "A kind word costs nothing, and it is worth more than gold.",
    ],
    "DORA": [
        "I keep the town books, and every penny is written down.",
        "The mayor has three meetings this morning and has forgotten two of them.",
        "I have copied the harbour accounts twice, because the first copy got wet.",
        "My pen has been scratching since eight o'clock.",
        "If it is not written down, it did not happen; that is my rule.",
        "Somebody has to read the small print, and it is always me.",
        "The council minutes are dull, but somebody must keep them.",
        "I have the mayor's diary here, and it is full to bursting.",
    ],
    "SAMUEL": [
        "I sailed round the Cape twice, and I have the scars to prove it.",
        "When I was a boy, the harbour was full of tall ships.",
        "I have seen waves as high as the chapel tower.",
        "My old knees tell me when the weather will turn.",
        "There is a story about Zephyr Rocks, and I am the only one left who knows it.",
        "I have a parrot's feather in my hat from a voyage in 1871.",
        "The sea gives and the sea takes; that is all a sailor needs to know.",
        "Buy me a cider and I will tell you about the wreck of the Juniper.",
    ],
}

# ---------------------------------------------------------------------------
# Places and times
# ---------------------------------------------------------------------------

# key: (heading text, indoors?, people often found there, what someone might be doing)
LOCATIONS = {
    "harbour": ("The harbour wall", False, ["OSWALD", "GIDEON", "SAMUEL", "FELIX", "IVY"],
                ["looking out to sea", "sitting on an upturned crate", "coiling a rope"]),
    "bakery": ("The bakery on Fish Street", True, ["MARGERY", "TOBIAS"],
               ["kneading dough", "stacking loaves on a tray", "sweeping flour from the floor"]),
    "inn": ("The parlour of the Gull and Anchor", True, ["ROSALIND", "NED", "SAMUEL", "VICTOR"],
            ["wiping the tables", "stirring the fire", "counting glasses"]),
    "lamproom": ("The lamp room at Jackdaw Point", True, ["AGATHA", "WILLOW"],
                 ["polishing the great lens", "trimming the wick", "winding the clockwork"]),
    "keeper": ("The keeper's kitchen at Jackdaw Point", True, ["AGATHA", "WILLOW"],
               ["mending a shawl", "pouring cocoa", "reading the log book"]),
    "landing": ("The ferry landing", False, ["JASPER", "XAVIER"],
                ["coiling a rope", "reading the timetable", "waiting with a trunk"]),
    "ferry": ("The deck of the Jenny Wren, at sea", False,
              ["JASPER", "XAVIER", "ZELDA"],
              ["holding the rail", "coiling a rope", "watching the wake"]),
    "square": ("The market square", False, [],
               ["buying apples", "waiting by the pump", "carrying a basket"]),
    "townhall": ("The mayor's office in the town hall", True, ["QUENTIN", "DORA"],
                 ["signing papers", "looking out of the window", "sorting letters"]),
    "garden": ("The mayor's garden", False, ["QUENTIN", "ZELDA"],
               ["pruning roses", "reading on a bench", "feeding the hens"]),
    "school": ("The schoolroom", True, ["PRUDENCE", "FELIX", "IVY", "WILLOW"],
               ["cleaning the blackboard", "marking copybooks", "painting a backcloth"]),
    "forge": ("The forge on Anchor Lane", True, ["HUGO"],
              ["working the bellows", "hammering a horseshoe", "cooling a bar in the trough"]),
    "post": ("The post office", True, ["YVONNE", "KIT"],
             ["sorting letters", "weighing a parcel", "licking stamps"]),
    "chapel": ("The chapel porch", False, ["CLEMENT"],
               ["sweeping the step", "reading a notice", "looking up at the tower"]),
    "beach": ("The beach below the cliffs", False, ["FELIX", "IVY", "WILLOW", "KIT"],
              ["digging in the sand", "skimming stones", "looking in rock pools"]),
    "netloft": ("The net loft above the fish market", True, ["URSULA", "OSWALD"],
                ["mending a net", "hanging nets to dry", "winding twine"]),
    "doctor": ("Doctor Webb's front room", True, ["LUCAS", "BEATRICE"],
               ["rolling bandages", "sewing a hem", "writing in a notebook"]),
    "orchard": ("Esther's orchard on Juniper Lane", False, ["ESTHER"],
                ["picking up windfalls", "watching the hives", "resting on a bench"]),
    "quay": ("The quay", False, ["GIDEON", "OSWALD", "XAVIER"],
             ["checking the mooring lines", "writing in a ledger", "mending a lobster pot"]),
    "cliff": ("The cliff path above Zephyr Rocks", False, [],
              ["out of breath", "leaning on a stick", "looking down at the rocks"]),
    "office": ("The harbour master's office", True, ["GIDEON"],
               ["writing in the harbour book", "looking through a spyglass", "filling a pipe"]),
}

# workplaces (as said in farewells) and the locations that are them
HOME_LOCS = {
    "the bakery": ["bakery"], "the town hall": ["townhall"], "the house": ["garden"],
    "the ferry": ["ferry", "landing"], "the lamp": ["lamproom", "keeper"],
    "the lighthouse": ["lamproom", "keeper"], "the schoolroom": ["school"],
    "the forge": ["forge"], "the inn": ["inn"], "the post office": ["post"],
    "my patients": ["doctor"], "my sewing": ["doctor"], "the harbour office": ["office"],
    "my bees": ["orchard"], "the net loft": ["netloft"], "the chapel": ["chapel"],
    "my nets": ["netloft"],
}

# (heading text, greeting period)
TIMES = [
    ("before dawn", "dawn"), ("at first light", "dawn"), ("early morning", "morning"),
    ("a bright morning", "morning"), ("a wet morning", "morning"), ("mid-morning", "morning"),
    ("noon", "day"), ("afternoon", "day"), ("late afternoon", "day"), ("a grey afternoon", "day"),
    ("at dusk", "evening"), ("evening", "evening"), ("a misty evening", "evening"),
    ("night", "night"), ("late at night", "night"),
]
CLOCK_NOW = {"dawn": ["half past five", "six o'clock", "a quarter to six"],
             "morning": ["nine o'clock", "half past ten", "eleven"],
             "day": ["two o'clock", "half past three", "four"],
             "evening": ["seven", "half past eight", "eight o'clock"],
             "night": ["eleven", "midnight", "half past eleven"]}
NOW_REF = {"dawn": "this morning", "morning": "this morning", "day": "this afternoon",
           "evening": "this evening", "night": "tonight"}
TOD_WORD = {"dawn": "morning", "morning": "morning", "day": "afternoon",
            "evening": "evening", "night": "evening"}

# ---------------------------------------------------------------------------
# Shared word lists. A slot {name} picks one entry; entries may contain slots.
# A trailing digit ({loaf2}) picks from the same list but independently.
# ---------------------------------------------------------------------------

WORDS = {
    "town": [TOWN],
    "adj_mood": ["tired", "pale", "worried", "cheerful", "cross", "restless", "thoughtful",
                 "flustered", "weary", "sunburnt", "gloomy", "excited", "half asleep", "frozen",
                 "nervous", "hungry", "very smart", "out of sorts", "distracted", "pleased"],
    "drink": ["tea", "cocoa", "cider", "ginger beer", "hot milk", "coffee", "nettle tea",
              "warm broth", "lemon barley"],
    "food_some": ["soup", "bread", "stewed apples", "honey cake", "eggs", "barley broth",
                  "fish pie", "gingerbread"],
    "loaf": ["cottage loaf", "seed loaf", "milk loaf", "brown loaf", "rye loaf",
             "plaited loaf", "barley loaf", "oat loaf"],
    "loaves": ["cottage loaves", "seed loaves", "milk loaves", "brown loaves", "rye loaves",
               "plaited loaves", "barley loaves"],
    "bun": ["currant bun", "saffron bun", "sticky bun", "iced bun", "cream bun", "honey bun"],
    "cakes": ["ginger biscuits", "lemon tarts", "jam tarts", "seed cakes", "apple turnovers",
              "rock cakes", "oat cakes", "almond slices", "treacle tarts"],
    "place_short": ["harbour", "quay", "chapel", "market", "post office", "forge", "schoolroom",
                    "bakery", "ferry landing", "net loft", "town hall", "fish market",
                    "pump", "ropewalk"],
    "gossip_place": ["the Gull and Anchor", "the post office", "the market", "the chapel door",
                     "the pump in the square", "the net loft", "the bakery counter",
                     "the ferry landing"],
    "time_ago": ["an hour ago", "this morning", "just now", "not ten minutes ago",
                 "yesterday evening", "at breakfast", "on my way here", "after church"],
    "since_ref": ["Sunday", "yesterday morning", "Tuesday night", "the full moon", "last week",
                  "the day of the fair", "breakfast", "the spring tides"],
    "when_ref": ["on Sunday", "yesterday morning", "on Tuesday night", "last week",
                 "the day before yesterday", "at the full moon"],
    "clock": ["six o'clock", "half past seven", "a quarter to nine", "ten past four", "noon",
              "midnight", "half past two", "five o'clock", "a quarter past eleven",
              "twenty to three"],
    "ferry_time": ["7:15", "9:40", "12:30", "3:05", "5:50", "8:20", "6:45"],
    "chore": ["the floor to scrub", "two shirts to mend", "the hens to feed",
              "water to fetch from the pump", "a letter to write", "potatoes to peel",
              "the step to whiten", "the coal to bring in", "a hem to finish",
              "the lamps to fill", "the nets to hang out", "the bread to fetch"],
    "doing": ["carrying a sack of coal", "arguing with a goat", "sitting on the wall",
             "running as if the house were on fire", "whistling a hymn", "counting money",
             "feeding the gulls", "reading a letter", "staring at the sea", "sweeping a step",
             "chasing a hat down the lane", "talking to a cat"],
    "weather_adj": ["grey", "blustery", "close", "raw", "bright and cold", "damp", "muggy",
                    "bitter", "fresh", "drizzly", "foggy", "fair", "windy"],
    "body_part": ["knee", "elbow", "back", "shoulder", "hip", "left ankle", "old wound", "neck"],
    "object": ["a bucket", "a single boot", "a basket of crabs", "somebody's umbrella",
               "a broken oar", "a child's kite", "a coil of rope", "a lobster pot",
               "a wet newspaper", "a dead crab", "half a sandwich"],
    "smell": ["fresh bread", "tar", "seaweed", "wood smoke", "frying fish", "wet dogs",
              "hot iron", "apple blossom", "paint"],
    "extra": ["old Mr Penrose", "the widow Jenner", "Tom Rudd's mother", "Mrs Faraday",
              "little Sally Quayle", "Walter Dunn", "the Morrow girl", "old Mr Ashdown"],
    "days_trend": ["longer", "shorter"],
    "tide_state": ["on the turn", "coming in", "going out", "nearly full", "very low"],
    "boat_act": ["going out", "coming in"],
    "adj_view": ["beautiful", "grey and sulky", "very busy", "strangely empty",
                 "calm as a pond", "full of gulls", "like a painting"],
    "direction": ["north", "east", "south", "west", "north-east", "south-west"],
    "thing_bought": ["teapot", "bucket", "basket", "lamp glass", "umbrella", "milk jug",
                     "flower pot"],
    "tool": ["hammer", "ball of string", "lantern", "spoon", "broom", "basket",
             "pair of scissors", "coil of rope", "ladle", "bucket", "chisel"],
    "lendable": ["a hammer", "your ladder", "a lantern", "your good knife", "a spade",
                 "your wheelbarrow", "a saw", "your big kettle"],
    "when_future": ["tomorrow", "after supper", "on Sunday", "later", "in the morning",
                    "before dark"],
    "number": ["twelve", "twenty", "thirty", "forty", "fifty", "eighteen", "sixty", "a hundred",
               "fourteen", "twenty-two", "thirty-five"],
    "day": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"],
    "fare": ["sixpence", "ninepence", "a shilling", "one and six", "tenpence"],
    "sky_colour": ["green", "yellow", "bruised", "dark", "copper-coloured", "strange"],
    "sea_state": ["grey and heavy", "white from end to end", "angry", "wild", "high and ugly"],
    "storm_damage": ["slates off the chapel roof", "a tree down on Juniper Lane",
                     "the fence round Esther's orchard", "two rowing boats from the quay",
                     "the bakery sign", "half the nets on the drying poles",
                     "the roof of the hen house"],
    "lantern_colour": ["red", "green", "blue", "yellow", "gold", "purple", "orange", "silver"],
    "days_left": ["three days", "a week", "ten days", "a fortnight", "four days"],
    "bell_cost": ["sixty pounds", "ninety pounds", "more than a hundred pounds"],
    "lookout": ["the chapel tower", "the gallery of the lighthouse", "the top of the hill",
                "my bedroom window", "the end of the harbour wall"],
    "remain_act": ["lost in thought", "looking after them", "deep in thought",
                   "quite still", "smiling to no one"],
    "manner": ["out of breath", "carrying a lantern", "with a letter in hand", "wet through",
               "in a great hurry", "with a basket on one arm", "wrapped in a shawl",
               "muddy to the knees", "whistling", "looking worried", "carrying a parcel"],
}

# ---------------------------------------------------------------------------
# Topics. Each gives noun phrases ({tn}), values bound once per play ("bind"),
# statements, questions with answers, exclamations, commands, conditionals,
# news for someone who enters, things to list, sound cues and play titles.
# Prefix tags on a template: "IN|" indoors only, "OUT|" outdoors only,
# "@A,B|" only these speakers may say it, "!A,B|" these speakers may not,
# "~A,B|" (questions) these people may not be the one asked, "^A,B|" only they may be.
# ---------------------------------------------------------------------------

TOPICS = {}

TOPICS["storm"] = dict(
    titles=["THE GREAT GALE", "A WIND FROM THE WEST", "THE NIGHT OF THE STORM"],
    places=["harbour", "quay", "lamproom", "inn", "office", "keeper", "cliff"],
    people=["GIDEON", "AGATHA", "OSWALD", "SAMUEL", "JASPER"],
    tn=["the storm", "this storm", "the gale", "the weather", "this wind"],
    bind={},
    stmt=[
        "{Other} spent the night bailing out the cellar with a saucepan.",
        "The storm has blown every gull in the county into {town}.",
        "My shutters held, but only just; I sat up with them like sick children.",
        "After a storm like this, the beach is covered in wood and weed and odd shoes.",
        "There was a ship out past the point at dusk, beating into the wind.",
        "The ferry is tied up at the landing with four ropes and a prayer.",
        "Something came down in the lane at {clock}; I think it was {storm_damage}.",
        "The wind has been howling round the chimney since {clock}.",
        "The glass is falling; I tapped it twice this morning.",
        "I have never seen the sky so {sky_colour} before a storm.",
        "The boats are all tied up, and Gideon has doubled the ropes.",
        "The storm took {storm_damage} in the night.",
        "Every shutter on Fish Street is banging like a drum.",
        "The waves are breaking right over the harbour wall.",
        "We shall have to bring the washing in, or lose it to the sea.",
        "Nobody will cross to Oxley Island in this, not even the ferry.",
        "The gulls came inland yesterday; they always know.",
        "I have filled the lamps and brought in the coal, in case it lasts.",
        "My {body_part} has been aching all day; that always means a gale.",
        "The rain is coming sideways off the sea, cold as needles.",
        "They say the last storm like this was in the winter of 1881.",
        "The sea is {sea_state} {now_ref}, and it is getting worse.",
        "I heard the thunder rolling over Zephyr Rocks before dawn.",
        "The chapel bell rang by itself in the night, from the wind alone.",
        "We have sandbags at the bakery door and candles on every shelf.",
        "Half of {town} is out on the quay, watching the sea come in.",
        "I saw the spray from {lookout}, higher than the houses.",
        "IN|Listen to the rain on the roof; it sounds like gravel.",
        "OUT|Hold on to something; the next gust will have your hat.",
    ],
    q=[
        ("Will the storm pass before nightfall, do you think?",
         ["Not before midnight, if the sky is anything to go by.",
          "I doubt it; the wind is still rising from the {direction}.",
          "The glass says it will, but I do not trust the glass.",
          "It may ease by supper, but the sea will stay rough till morning."]),
        ("Are all the boats safely in?",
         ["All but one, and Gideon is watching for it now.",
          "Every one of them, tied twice and tied again.",
          "Yes, thank heaven; the last came in at {clock}."]),
        ("Did you hear the thunder last night?",
         ["Hear it? It shook the cups off my dresser.",
          "I slept through it, if you can believe it.",
          "I heard it, and I counted the seconds like a child."]),
        ("Is the light burning on Jackdaw Point?",
         ["It is; Agatha would burn the furniture before she let it go out.",
          "Yes, I saw it from the hill, steady as a star.",
          "It was at midnight; I looked out to be sure."]),
        ("What damage has the wind done?",
         ["It took {storm_damage}, and that is only what I have seen.",
          "Less than I feared; a few slates and a lot of fright.",
          "Nobody knows yet; we shall see when it is light."]),
    ],
    excl=["Listen to that wind!", "Heaven help anyone at sea tonight!",
          "Look at the size of that wave!", "Mercy, the whole house is shaking!",
          "There goes somebody's washing!"],
    cmd=["Shut the shutters and bar the door.",
         "Bring the lamps in from the yard before they blow away.",
         "Go down to the quay and help Gideon with the ropes.",
         "Stay away from the harbour wall until the wind drops.",
         "Put more coal on the fire; it will be a long night."],
    cond=["If the wind goes round to the east, we shall have the worst of it.",
          "If the sea comes over the quay, the fish market will flood again.",
          "If the storm lasts till morning, nobody will go out fishing.",
          "If you hear the harbour bell, come at once and bring a rope."],
    news=["The sea has come right over the quay!",
          "A chimney has come down on Fish Street!",
          "The harbour bell is ringing; a boat is in trouble!"],
    items=["candles", "rope", "sandbags", "dry matches", "a storm lantern", "oilskins",
           "a flask of tea", "blankets", "a spare shutter bar"],
    lists=["We shall need {list3} before dark.",
           "I have put out {list3}, just in case."],
    cues=["Thunder, far off.", "The wind rattles the shutters.",
          "A great wave bursts against the wall."],
)

TOPICS["lost_boat"] = dict(
    titles=["THE EMPTY MOORING", "WAITING FOR {BOAT}", "A LIGHT ON THE WATER"],
    places=["harbour", "quay", "office", "lamproom", "cliff", "inn", "netloft"],
    people=["GIDEON", "OSWALD", "AGATHA", "SAMUEL", "URSULA"],
    tn=["{boat}", "the missing boat", "{bo}'s boat"],
    bind=dict(
        bo=["Tom Rudd", "Walter Jenner", "Billy Penrose", "Arthur Quayle", "Harry Dunn",
            "Jack Morrow"],
        boat=["the Kestrel", "the Lucky Quill", "the Mary Jane", "the Sea Pink", "the Curlew",
              "the Brave Jemima", "the Two Brothers", "the Zinnia"],
        bo_wife=["Jenny", "Martha", "Nell", "Sarah", "Polly"],
        boat_colour=["blue and white", "bright green", "red with a yellow stripe", "black"],
        boat_day=["Tuesday", "Sunday morning", "the day before yesterday", "Friday night"],
        last_seen=["off Zephyr Rocks", "heading for Oxley Island", "past the point at dawn",
                   "near the Black Ledge", "beyond the north buoy"],
    ),
    stmt=[
        "{Bo_wife} bakes bread every morning, so there will be fresh bread when he comes in.",
        "{Other} sat up all night on the harbour wall with a lantern.",
        "{Boat} was painted {boat_colour} last spring; you could see her a mile off.",
        "Gideon has sent word to Vexley and to Oxley Island, in case she put in there.",
        "Every time the door opens, {bo_wife} looks up, and every time it is not him.",
        "The sea was flat as a plate when {boat} went out; nobody expected trouble.",
        "{Bo} has two sons and a daughter, and the youngest is only four.",
        "Nobody has seen {boat} since {boat_day}, when she was {last_seen}.",
        "{Bo} took {boat} out yesterday morning and has not come home.",
        "{Bo_wife} has been standing on the harbour wall since dawn.",
        "Every boat in {town} went out looking, and came back with nothing.",
        "{Boat} is an old boat, but she is sound; I have seen her in worse.",
        "There was a light out past the point last night; it could have been {boat}.",
        "{Bo} knows these waters better than anyone; he will have found shelter.",
        "The tide would have carried a drifting boat north, towards Oxley Island.",
        "Gideon has written {boat} in the harbour book with a question mark.",
        "I keep looking at the horizon, as if looking could bring her home.",
        "If {bo} is alive, he will be cold and hungry and very cross.",
        "{Bo_wife} will not eat or sleep until she has news.",
        "They found an oar on the beach this morning, but it was not from {boat}.",
        "The ferry is going to search the far side of Oxley Island.",
        "A boat can ride out a blow in the lee of Zephyr Rocks, if her skipper is clever.",
        "I lit a candle in the chapel for {bo} and his crew.",
        "We must not give up hope; boats have come home after a week before now.",
        "{Bo} always said {boat} was the luckiest boat in the harbour.",
        "I saw {boat} go out past the lighthouse with her brown sail up.",
        "{Bo}'s little boy keeps asking when his father is coming home.",
    ],
    q=[
        ("Is there any news of {boat}?",
         ["Nothing yet; the sea is keeping her secrets.",
          "None, though the ferry is out looking now.",
          "Only rumours, and I will not repeat rumours.",
          "Not a word since she was seen {last_seen}."]),
        ("When was {boat} last seen?",
         ["On {boat_day}, {last_seen}.",
          "Agatha saw her from the lamp room, {last_seen}.",
          "The Jenner boys saw her {last_seen}, and then the mist came down."]),
        ("How is {bo_wife} bearing up?",
         ["Badly; she will not leave the harbour wall.",
          "She is braver than the rest of us put together.",
          "Margery has taken her soup, but she will not touch it.",
          "She is calm, which frightens me more than tears."]),
        ("Do you think {bo} is still alive?",
         ["I do; he is too stubborn to drown.",
          "I have to think so, or I could not bear it.",
          "If anyone can live through a night at sea, it is {bo}.",
          "I do not know, and I will not guess."]),
        ("Has anyone searched the caves under Jackdaw Point?",
         ["Oswald rowed round there at first light and saw nothing.",
          "Not yet; the tide was too high this morning.",
          "Agatha says she will look from the gallery at low water."]),
    ],
    excl=["God send {boat} home safe!", "Poor {bo_wife}, to wait like this!",
          "What a cruel sea it is!", "Look there, a sail! No, only a gull.",
          "I cannot bear this waiting!"],
    cmd=["Take this lantern to the end of the wall and keep it lit.",
         "Run and tell Gideon to ring the harbour bell if there is news.",
         "Go and sit with {bo_wife}; she should not be alone.",
         "Keep watching the point, and shout if you see a sail.",
         "Fetch blankets and hot tea, in case they bring him in."],
    cond=["If {boat} is not home by nightfall, we go out again with every boat we have.",
          "If the wind had been from the east, she would have been home by now.",
          "If {bo} has any sense, he will have beached her on Oxley Island.",
          "If you hear the harbour bell, come running."],
    news=["They have found an oar on the beach below the cliffs!",
          "Agatha has seen a brown sail from the lamp room!",
          "The ferry has come back, and there is no sign of {boat}!",
          "{Bo} has been seen on Oxley Island, alive and well!"],
    items=["lanterns", "blankets", "a flask of tea", "rope", "a spare oar", "dry clothes",
           "a ship's biscuit or two", "a whistle", "a coil of line"],
    lists=["Put {list3} in the boat before we go.",
           "We shall take {list3}, and a prayer."],
    cues=["A gull cries over the empty water.", "The harbour bell rings once."],
)

TOPICS["festival"] = dict(
    titles=["LANTERNS ON THE QUAY", "FESTIVAL NIGHT"],
    places=["square", "townhall", "school", "bakery", "harbour", "chapel", "forge"],
    people=["QUENTIN", "DORA", "PRUDENCE", "MARGERY", "IVY", "FELIX"],
    tn=["the Lantern Festival", "the festival", "festival night"],
    bind={},
    stmt=[
        "{Other} is going to dress up as the old sea captain and lead the procession.",
        "Rosalind is brewing a special festival cider, and she will not say what is in it.",
        "I keep finding bits of coloured paper in my hair.",
        "The lanterns are stored in the town hall attic, and half of them are squashed.",
        "On festival night the ferry runs late, so the island people can come over.",
        "At my first festival I dropped my lantern in the harbour and cried all the way home.",
        "The prize for the best lantern is a cake, and the competition is fierce.",
        "The Lantern Festival is only {days_left} away, and nothing is ready.",
        "I have made {number} paper lanterns, and my fingers are stuck together with paste.",
        "This year the children will carry {lantern_colour} lanterns along the quay.",
        "The procession starts at the chapel and ends at the end of the harbour wall.",
        "Hugo has made iron hooks for every lamp post on Fish Street.",
        "The band has been practising, and I am sorry to say it shows.",
        "Margery is baking lantern buns with a cherry on top of each one.",
        "Every window in {town} will have a candle in it on festival night.",
        "My grandmother said the festival began when a lost ship was guided home by lanterns.",
        "The mayor is going to make a speech, so bring something to sit on.",
        "Last year it rained, and the lanterns went out one by one like sad little stars.",
        "I am going to hang a {lantern_colour} lantern in my window, with a star cut into it.",
        "We float the lanterns out on the water at midnight; it is the best part.",
        "The committee has argued about the route for three weeks.",
        "There will be dancing in the square, and cider, and far too much noise.",
        "Ursula has promised to make a lantern shaped like a fish.",
        "The whole harbour glows on festival night; you can see it from Oxley Island.",
    ],
    q=[
        ("Have you made your lantern yet?",
         ["Not yet; I cannot decide between {lantern_colour} and {lantern_colour2}.",
          "I have, and it is the finest one on Fish Street.",
          "Twice, and the cat sat on both of them.",
          "I am making it tonight, if I can find the paste."]),
        ("Who is carrying the great lantern this year?",
         ["Gideon, as always; nobody else is tall enough.",
          "It is Zelda's turn, and the mayor is very proud.",
          "They are drawing lots at the town hall on {day}.",
          "Felix asked to, but he is too small by a head."]),
        ("Will the weather hold for the festival, do you think?",
         ["Oswald says it will, and he is seldom wrong.",
          "If it rains again, I shall cry.",
          "The sky looks kind enough, but it is a long time till then."]),
        ("What time does the procession start?",
         ["At eight, when the chapel bell rings.",
          "At dusk, as it always has.",
          "When the mayor has finished his speech, so who can say."]),
    ],
    excl=["Oh, I do love festival night!", "What a lot of lanterns!",
          "Mind the paint, it is still wet!", "Goodness, the paste is everywhere!"],
    cmd=["Hold this string while I tie the knot.",
         "Cut out the star carefully, or the candle will set it alight.",
         "Carry the lanterns to the town hall, and do not run.",
         "Ask Margery how many lantern buns she can make."],
    cond=["If it rains on festival night, we shall put the lanterns in the chapel.",
          "If you tie the string too tight, the paper will tear.",
          "If the wind gets up, the floating lanterns will sink before midnight."],
    news=["The lantern paper from Kingsbridge has arrived at last!",
          "The mayor says the band may play after all!",
          "Somebody has painted the town hall steps for the festival!"],
    items=["paper", "paste", "string", "candles", "wire", "paint", "ribbon", "scissors",
           "bamboo canes", "a pot of glue"],
    lists=["For the lanterns we still need {list3}.",
           "I have bought {list3}, and my purse is empty."],
    cues=["A band starts up somewhere, badly.", "Children run past with lanterns."],
)

TOPICS["debt"] = dict(
    titles=["WHAT IS OWED", "A MATTER OF MONEY"],
    places=["inn", "townhall", "kitchen_any", "square", "chapel", "doctor", "orchard"],
    people=["QUENTIN", "DORA", "VICTOR", "CLEMENT", "ROSALIND"],
    tn=["the debt", "{ab}'s debt", "the money", "the loan"],
    bind=dict(
        amount=["forty pounds", "eleven guineas", "ninety pounds", "twelve guineas",
                "three hundred pounds"],
        creditor=["the bank in Kingsbridge", "a moneylender in Vexley", "the Harbour Trust",
                  "old Mr Ashdown at the mill"],
        due=["by Friday", "by the end of the month", "before Lady Day", "by midsummer"],
        reason=["for a new roof", "for a boat that sank", "to pay the doctor",
                "for seed and tools", "to help a brother"],
    ),
    ab="adult",
    stmt=[
        "{Ab} asked me for nothing, but I saw {ab_him} counting coins at the market.",
        "Owing money makes a person go quiet; {ab} has hardly said a word all week.",
        "{Creditor} does not care about excuses, only about the date.",
        "I offered to buy {ab_his} old chairs, just to help, and {ab_he} nearly cried.",
        "The interest alone is more than I earn in a month.",
        "{Other} thinks the mayor could find the money in the town purse.",
        "{Ab} owes {amount} to {creditor}, and it must be paid {due}.",
        "The money was borrowed {reason}, and now the interest is eating it alive.",
        "{Ab} has not told a soul, but everyone knows.",
        "I have counted every coin in the house, and it comes to less than a pound.",
        "{Creditor} sent a letter, very polite and very cold.",
        "{Ab} was always proud; it will hurt {ab_him} to ask for help.",
        "A debt is like a damp wall; it spreads if you ignore it.",
        "We could take up a collection, if {ab} would allow it.",
        "I would lend {ab_him} the money myself, if I had it to lend.",
        "{Amount} is a great deal of money for a town like {town}.",
        "Paying {due} is impossible; {ab_he} needs more time.",
        "My father always said, pay cash or go without.",
        "{Ab} has been selling things quietly; the clock went last week.",
        "If {ab} loses the house, it will break {ab_his} heart.",
        "Money troubles make honest people do foolish things.",
        "{Ab} crosses the street to avoid the lawyer's door.",
    ],
    q=[
        ("How much does {ab} owe?",
         ["{Amount}, and more every month.",
          "{Amount}, so I hear, though nobody will say it aloud.",
          "Too much; {amount}, if you count the interest."]),
        ("Who lent {ab} the money?",
         ["{Creditor}, and they want it back {due}.",
          "It was {creditor}, and I wish {ab_he} had come to us instead."]),
        ("What was the money for?",
         ["It was {reason}, and it seemed a good idea at the time.",
          "It was borrowed {reason}; nobody could have known how it would end."]),
        ("Can we help {ab} somehow?",
         ["We can try, but {ab_he} is too proud to take charity.",
          "I have a little put by; it is not much, but it is something.",
          "Perhaps the mayor could speak to {creditor}."]),
        ("Does {ab} know that we know?",
         ["I think {ab_he} suspects; {ab_he} would not meet my eye.",
          "Not yet, and I would rather keep it that way."]),
    ],
    excl=["{Amount}! Heaven help us!", "What a wretched business!", "Poor {ab}!",
          "Money, money, always money!"],
    cmd=["Say nothing to {ab} yet; let me speak to {ab_him} first.",
         "Write down everything {ab} owes, and to whom.",
         "Put that purse away; this is not the time."],
    cond=["If we all give a little, {ab} need not lose everything.",
          "If {creditor} will wait until the summer, the money can be found.",
          "If {ab} had asked sooner, this would never have happened."],
    news=["{Creditor} has sent a man to see {ab}!",
          "{Ab} has paid half the debt, and nobody knows how!",
          "The letter from {creditor} says the money is due {due}!"],
    items=["the clock", "a silver spoon", "my mother's brooch", "a pair of candlesticks",
           "a gold watch", "the good chairs", "the piano", "a jar of pennies"],
    lists=["We could sell {list3}, if it came to that.",
           "I have given {ab} {list3}, and it is still not enough."],
    cues=["Somebody knocks at a door and goes away again."],
)

TOPICS["wedding"] = dict(
    titles=["A WEDDING IN QUILLHAVEN", "THE BLUE HAT", "{BRIDE} AND {GROOM}"],
    places=["chapel", "doctor", "bakery", "inn", "square", "garden", "orchard"],
    people=["BEATRICE", "CLEMENT", "MARGERY", "ROSALIND", "ESTHER"],
    tn=["the wedding", "{bride} and {groom}'s wedding", "the big day"],
    bind=dict(
        bride=["Lily Rudd", "Martha Penrose", "Annie Quayle", "Rose Dunn", "Clara Jenner"],
        groom=["Sam Jenner", "Joe Quayle", "Will Morrow", "Davy Penrose", "Jacob Rudd"],
        wday=["Saturday", "the first Saturday in May", "Midsummer Day", "Saturday week"],
    ),
    stmt=[
        "{Groom} has been practising his vows on the goats.",
        "The chapel will be full of flowers, if the frost keeps off.",
        "{Bride}'s mother has invited everyone in Vexley too, which is a great many people.",
        "There is to be dancing afterwards, and Samuel has promised to play the fiddle.",
        "{Other} has knitted them a blanket, all in blue and white.",
        "Nobody has been married in the chapel since last spring, so it will be a treat.",
        "{Groom} has bought a new suit, and he walks as if it were made of cardboard.",
        "{Bride} and {groom} are to be married on {wday}, in the chapel.",
        "Beatrice has been sewing the dress for a month, and nobody has seen it.",
        "{Groom} is so nervous he dropped a cup at breakfast.",
        "{Bride} wants white roses, but there is not a white rose in {town} this month.",
        "The wedding breakfast will be at the Gull and Anchor, with a cake from the bakery.",
        "I have known {bride} since she was a baby in a basket.",
        "{Groom} asked her on the harbour wall, in the rain, and she said yes before he finished.",
        "The whole town is invited, and the whole town will come.",
        "The parson has been practising their names so he does not get them wrong.",
        "I shall wear my blue hat, the one with the feather.",
        "Margery is making a cake with four tiers and a sugar boat on the top.",
        "They will live in the little house by the ropewalk, with the green door.",
        "I cried at my own wedding, and I expect I shall cry at this one.",
        "{Groom}'s mother thinks {bride} is too good for him, and she may be right.",
        "The bells will ring, if the ringers are sober.",
        "{Bride} has been practising her new name on the back of every envelope.",
    ],
    q=[
        ("Are you going to the wedding on {wday}?",
         ["Of course; I would not miss it for the world.",
          "I am, if my good shoes still fit.",
          "I am invited, but I have nothing to wear.",
          "Yes, and I am to sit near the front."]),
        ("What are you giving {bride} and {groom}?",
         ["A pair of pillowcases, with their letters sewn on.",
          "A honey cake and my good wishes.",
          "A clock, because {groom} is always late.",
          "I have not decided; I never know what people give these days."]),
        ("Who will give {bride} away?",
         ["Her uncle, since her father was lost at sea.",
          "Her brother, if he gets back from Kingsbridge in time.",
          "The mayor offered, but she wants her grandfather."]),
        ("Has anyone seen the dress?",
         ["Not a soul; Beatrice keeps it under a sheet.",
          "I saw a sleeve once, and it was beautiful.",
          "Only the cat, and the cat is not telling."]),
    ],
    excl=["A wedding in {town} at last!", "Oh, they will make a lovely pair!",
          "Bless them both!", "What a day it will be!"],
    cmd=["Carry these flowers to the chapel, and mind the stems.",
         "Ask Rosalind how many chairs she can lend.",
         "Go and tell {bride} that the cake is safe.",
         "Do not tell {groom} about the dress; it is bad luck."],
    cond=["If it rains on {wday}, we shall all squeeze into the chapel porch.",
          "If {groom} is late, I shall fetch him myself.",
          "If the cake survives the walk up the hill, it will be a miracle."],
    news=["{Groom} has lost the ring, and found it again in his boot!",
          "The parson has caught a cold and may have no voice on {wday}!",
          "{Bride} has chosen the hymns, and they are all the long ones!"],
    items=["flowers", "ribbon", "chairs", "candles", "rice", "a white cloth",
           "sugared almonds", "a new hat", "a pair of gloves"],
    lists=["For the wedding we still need {list3}.",
           "I have bought {list3}, and my purse is empty."],
    cues=["The chapel bell rings for practice.", "Somebody is singing in the lane."],
)

TOPICS["letter"] = dict(
    titles=["THE LETTER FROM AWAY", "NEWS BY THE MORNING COACH"],
    places=["post", "square", "doctor", "inn", "orchard", "townhall", "keeper"],
    people=["YVONNE", "KIT", "URSULA"],
    tn=["the letter", "{ab}'s letter", "that letter"],
    bind=dict(
        sender=["a lawyer in Kingsbridge", "a shipping company in Bristol",
                "an old friend in London", "a cousin in Yorkshire", "a stranger in Canada"],
        letter_news=["an uncle has left {ab_him} a house in the country",
                     "{ab_his} brother is coming home after twenty years away",
                     "somebody wants to buy {ab_his} cottage for a great deal of money",
                     "a ship {ab_he} once sailed in has been found",
                     "an old friend is coming to stay for the summer"],
    ),
    ab="adult",
    stmt=[
        "{Ab} had not had a letter in ten years, and now this.",
        "{Other} offered to read it aloud, but {ab} would not let it out of {ab_his} hands.",
        "Whatever that letter says, {ab} has been smiling and crying by turns.",
        "I saw {ab} at the window late last night, reading it by candlelight.",
        "Letters from {sender} do not come to {town} every day.",
        "If it were my letter, I would have opened it in private.",
        "A letter came for {ab} this morning, from {sender}.",
        "The envelope had a red seal on the back, and very neat writing.",
        "Yvonne said it was the thickest letter she has handled all year.",
        "{Ab} read it standing in the street, and then sat down on the step.",
        "They say it is from {sender}, but I have not seen it.",
        "The letter says that {letter_news}.",
        "I would not read another person's letter, though I might listen if they read it aloud.",
        "{Ab} has not answered it yet; the ink is drying on the desk.",
        "A letter like that can change a whole life.",
        "Kit carried it up the hill, running as if the paper were on fire.",
        "{Ab} has read it so many times the paper is going soft at the folds.",
        "I wrote to my sister twice last winter, and I am still waiting for a reply.",
        "There is a second page to it, apparently, and that is the interesting part.",
        "{Ab} keeps the letter in {ab_his} apron pocket and touches it now and then.",
    ],
    q=[
        ("What does the letter say?",
         ["It says that {letter_news}.",
          "I only know that {letter_news}, and that is plenty.",
          "That is {ab}'s business, and none of ours."]),
        ("Who sent it?",
         ["{Sender}, so Yvonne says.",
          "It came from {sender}; I saw the postmark.",
          "Somebody with very neat handwriting, that is all I know."]),
        ("Will {ab} answer it?",
         ["{Ab_he} will, when {ab_he} has stopped shaking.",
          "{Ab_he} is writing a reply now, by the window.",
          "I think {ab_he} means to go and answer it in person."]),
        ("Has {ab} told anyone else?",
         ["Only the parson, and the parson can keep a secret.",
          "Not yet, but Ursula is already guessing."]),
    ],
    excl=["A letter from {sender}! Whatever next?", "Well, I never did!",
          "After all these years!"],
    cmd=["Take this reply to the post office before the coach leaves.",
         "Read it again, slowly, from the beginning.",
         "Put the kettle on; this calls for tea."],
    cond=["If the letter is true, {ab}'s life will never be the same.",
          "If I had a letter like that, I should frame it.",
          "If it is a joke, it is a cruel one."],
    news=["Another letter has come, from {sender} again!",
          "{Ab} has bought a ticket for the morning coach!",
          "Yvonne says the letter went to the wrong house first!"],
    items=["paper", "ink", "a new nib", "a stamp", "sealing wax", "an envelope", "a blotter"],
    lists=["To write a proper answer you need {list3}.",
           "I have brought {list3}, so there is no excuse."],
    cues=["The mail coach horn sounds in the square."],
)

TOPICS["bakery"] = dict(
    titles=["FLOUR AND FIRE", "THE BAKER'S DOZEN"],
    places=["bakery", "bakery", "square", "forge", "inn"],
    people=["MARGERY", "TOBIAS", "HUGO"],
    tn=["the bakery", "the order", "the baking"],
    bind=dict(
        order=["two hundred buns for the school treat", "bread for the whole of the inn",
               "a wedding cake with four tiers", "forty pies for the fishermen's supper",
               "the mayor's birthday cake"],
        problem=["the big oven has cracked", "the flour is damp", "the yeast will not rise",
                 "the chimney is blocked", "the flour cart is late"],
    ),
    stmt=[
        "The smell of {loaves} coming out of the oven could wake the dead.",
        "Margery gives the broken biscuits to the children on the way to school.",
        "@MARGERY,TOBIAS|We start the fires at four, the dough at five and the shop at seven.",
        "There was a mouse in the flour store, and Tobias chased it into the street.",
        "The bakery is the warmest place in {town}, and everyone knows it.",
        "{Other} buys two {loaves} every morning and never says what for.",
        "@MARGERY,TOBIAS|We have {order} to make by Saturday, and {problem}.",
        "The whole street smells of bread by six in the morning.",
        "@MARGERY,TOBIAS|Since {problem}, we have been baking half as much and working twice as hard.",
        "@MARGERY,TOBIAS|I have had my hands in dough since before the gulls woke up.",
        "The {loaves} sold out before eight, and people were cross.",
        "Hugo says he can mend the oven door, if the bakery can spare it for a day.",
        "Nobody makes {cakes} like Margery; it is a plain fact.",
        "A bakery is warm in winter and hot as a furnace in summer.",
        "The flour comes from the mill at Vexley, when the cart remembers to come.",
        "@MARGERY,TOBIAS|I burnt my thumb on the oven tray and said a word the parson would not like.",
        "There is a queue outside the bakery before the door is even open.",
        "@MARGERY|I have been trying a new recipe with honey from Esther's bees.",
        "Yesterday the bakery sold {number} loaves and every {bun} in the shop.",
        "They say {problem}, and the whole street is worried about its breakfast.",
        "The bakery has taken on {order}, which is a great deal of baking.",
    ],
    q=[
        ("^MARGERY,TOBIAS|Can the order be ready in time?",
         ["If we work through the night, perhaps.",
          "It will be ready if I have to bake it in my own kitchen.",
          "Only if Tobias stops eating the broken ones.",
          "I do not know; ask me again on Friday morning."]),
        ("What is the trouble with the oven?",
         ["The back wall has cracked, and the heat leaks out.",
          "It smokes like a chimney fire and burns everything on the left.",
          "Nothing a good blacksmith cannot mend, I hope."]),
        ("^MARGERY,TOBIAS|What have you got left {now_ref}?",
         ["Two {loaves} and a tray of {cakes}, and that is all.",
          "Only yesterday's {loaves}, at half price.",
          "Nothing but crumbs and good intentions."]),
        ("^MARGERY,TOBIAS|Is it true the price of bread is going up?",
         ["Only by a halfpenny, and only because flour has gone up.",
          "Not if I can help it.",
          "It is, and I am sorry for it."]),
    ],
    excl=["Mind, that tray is hot!", "Oh, the smell of it!", "Not another burnt batch!",
          "Flour everywhere, again!"],
    cmd=["@MARGERY|Knead that dough as if you meant it.",
         "@MARGERY,TOBIAS|Take the {loaves} out before they burn.",
         "@MARGERY|Sweep the floor and put the sacks by the door.",
         "@MARGERY|Run to the mill and ask where our flour has got to."],
    cond=["@MARGERY,TOBIAS|If the oven is not mended by tonight, we shall have to borrow Rosalind's.",
          "@MARGERY|If you eat one more {bun}, I will dock your wages.",
          "@MARGERY,TOBIAS|If the dough does not rise by six, we start again.",
          "If the bakery shuts for a week, half the town will starve."],
    news=["The flour cart has come at last, and the sacks are dry!",
          "The mayor has ordered another hundred buns!",
          "The oven door has come clean off its hinges!"],
    items=["flour", "salt", "yeast", "butter", "sugar", "currants", "eggs", "a sack of oats",
           "honey", "lard"],
    lists=["@MARGERY,TOBIAS|Write it down: we need {list4}.",
           "Margery has sent out for {list3}.",
           "The cart should bring {list3}, if it ever comes."],
    cues=["The oven door bangs.", "A bell jangles over the shop door."],
)

TOPICS["lighthouse"] = dict(
    titles=["THE LAMP ON JACKDAW POINT", "ONE HUNDRED AND TWELVE STEPS"],
    places=["lamproom", "keeper", "cliff", "office", "forge"],
    people=["AGATHA", "WILLOW", "GIDEON", "HUGO"],
    tn=["the light", "the lighthouse", "the lamp"],
    bind=dict(
        problem=["the lamp keeps flickering", "the oil is running low",
                 "the great lens has a crack in it", "the clockwork that turns the light is failing",
                 "the oil ship from Kingsbridge is late"],
    ),
    stmt=[
        "Willow knows every ship by the shape of her lights.",
        "The log book in the lamp room goes back to 1820, every night written down.",
        "A ship's captain once sent Agatha a barrel of oranges, to say thank you.",
        "When the fog comes in, the keeper sounds the horn every half minute.",
        "The tower was whitewashed last summer, and it shines like a candle.",
        "Gideon says the lamp can be seen twenty miles out on a clear night.",
        "The light on Jackdaw Point has not missed a night in fifty years.",
        "But now {problem}, and the dark nights are coming.",
        "Agatha sits up with the lamp all night, wrapped in two shawls.",
        "From the gallery you can see the whole coast, as far as Vexley.",
        "Every sailor between here and Kingsbridge steers by that light.",
        "The lens is as tall as a man, and it must be polished every day.",
        "Without the light, ships would be on Zephyr Rocks within a week.",
        "The stairs in the tower are steep enough to make your heart jump.",
        "I climbed to the top once as a child and would not come down.",
        "The oil smells of fish and smoke; you never get it out of your clothes.",
        "Agatha says the light is like a baby; it needs you every minute.",
        "The clockwork has to be wound every four hours, rain or shine.",
        "The Harbour Trust says it cannot pay for a new lens until next year.",
        "Everyone in {town} knows that {problem}, and everyone has advice.",
    ],
    q=[
        ("!AGATHA,WILLOW|Is the light burning properly {now_ref}?",
         ["It is, but only because Agatha will not let it fail.",
          "It flickered twice before midnight, then steadied.",
          "I watched it from my window; it turned all night."]),
        ("!AGATHA,WILLOW|How much oil is left in the store?",
         ["Enough for nine nights, if the nights are short.",
          "Three barrels, and one of those is leaking.",
          "Not enough; not nearly enough."]),
        ("Can the lens be mended?",
         ["Hugo thinks he could make a brace for it.",
          "Only in Kingsbridge, and it would take a month.",
          "Not properly; but a patched lens is better than none."]),
        ("Who will sit up with the lamp tonight?",
         ["I will, and Willow can bring me cocoa at ten.",
          "Agatha, of course; she will let no one else.",
          "We shall take turns, two hours each."]),
    ],
    excl=["The light must not go out!", "Heaven keep the lamp burning!",
          "Listen to the clockwork grinding!", "All those steps, and my poor knees!"],
    cmd=["Trim the wick and wipe the glass, quickly now.",
         "Wind the clockwork, and count every turn.",
         "Carry this can of oil up to the lamp room.",
         "Watch the sea while I see to the lamp."],
    cond=["If the light goes out, some ship will find Zephyr Rocks the hard way.",
          "If the oil ship does not come by Friday, we must buy oil in Vexley.",
          "If you hear the clockwork stop, call me at once."],
    news=["The oil ship has been sighted off the point!",
          "The light went out for a minute last night, and a ship hooted!",
          "The Harbour Trust has sent a man to look at the lens!"],
    items=["oil", "wicks", "a polishing cloth", "spare glass", "matches", "a lantern",
           "a flask of cocoa", "a warm shawl"],
    lists=["Take up {list3}, and do not drop anything.",
           "The store is short of {list3}."],
    cues=["The great lamp turns, and its beam sweeps the room.",
          "Far out, a ship's horn answers the light."],
)

TOPICS["stranger"] = dict(
    titles=["THE STRANGER AT THE INN", "A GUEST FOR THE WINTER"],
    places=["inn", "square", "cliff", "post", "harbour", "chapel"],
    people=["ROSALIND", "NED", "URSULA", "SAMUEL"],
    tn=["the stranger", "the newcomer", "{str_short}"],
    bind="stranger",
    stmt=[
        "{Str_he} had breakfast at seven and was gone before the rest of us were up.",
        "{Str_short} wears boots far too good for our lanes.",
        "Ned took up {str_his} hot water and saw a map spread out on the bed.",
        "{Str_he} gave Kit a whole shilling for carrying one small bag.",
        "Samuel swears he has seen {str_short} before, somewhere in the south.",
        "{Str_he} asked Yvonne whether any letters had come for a Mr Black.",
        "There is a stranger at the Gull and Anchor: {stranger}.",
        "{Str_short} came on the evening coach and took the best room.",
        "{Str_he} asks a great many questions and answers none.",
        "I saw {str_short} on the cliff path, writing in a little book.",
        "Rosalind says {str_he} pays in new coins, every one of them shining.",
        "Nobody comes to {town} in winter without a reason.",
        "{Str_he} stood outside the town hall for an hour, looking at the windows.",
        "{Str_he} was very polite to me, which I find suspicious.",
        "Ursula thinks {str_he} is a spy; Samuel thinks {str_he} is a lost prince.",
        "{Str_he} asked about the old mill, and who owns it.",
        "I do not like strangers who smile too much.",
        "{Str_he} bought a {loaf} from Margery and paid double.",
        "Perhaps {str_he} is only a painter, come for the light on the water.",
        "{Str_short} walks to the end of the harbour wall every evening and stares at the point.",
    ],
    q=[
        ("Who is {str_short}, do you know?",
         ["Nobody knows, and that is the trouble.",
          "Rosalind says the name in the book is Smith, which tells us nothing.",
          "Some say a lawyer, some say a painter; I say a busybody."]),
        ("What does {str_he} want in {town}?",
         ["Land, I think; {str_he} keeps asking who owns what.",
          "{Str_he} says {str_he} is here for the sea air.",
          "{Str_he} will not say, and that is what worries me."]),
        ("How long is {str_he} staying?",
         ["A week, {str_he} told Rosalind, but {str_he} paid for a month.",
          "Until {str_he} finds what {str_he} is looking for, I suppose."]),
        ("Has {str_he} spoken to you?",
         ["Once, on the quay; {str_he} asked me the way to the lighthouse.",
          "No, but {str_he} looked at me as though {str_he} knew me.",
          "{Str_he} wished me good morning, very politely."]),
    ],
    excl=["A stranger, in {town}, in winter!", "What a mystery it is!",
          "There {str_he} goes now, look!"],
    cmd=["Keep an eye on {str_short}, and tell me where {str_he} goes.",
         "Do not gossip about {str_short}; {str_he} may hear you.",
         "Ask Rosalind what name {str_he} signed in the book."],
    cond=["If {str_he} is from the railway company, things will change here.",
          "If {str_he} means us harm, we shall know soon enough.",
          "If {str_he} asks about me, say I have gone to Vexley."],
    news=["{Str_short} has gone out in a hired boat towards Zephyr Rocks!",
          "{Str_short} has asked to see the mayor!",
          "{Str_short} has paid for the room till Easter!"],
    items=["a notebook", "a spyglass", "a leather case", "a gold watch", "a map",
           "a pair of boots from London"],
    lists=["In the room there was nothing but {list3}.",
           "{Str_he} carries {list3} everywhere."],
    cues=["A door closes softly upstairs.", "Footsteps pass the window and stop."],
)

TOPICS["fever"] = dict(
    titles=["THE WINTER FEVER", "BROTH AND BLANKETS"],
    places=["doctor", "square", "chapel", "post", "school", "bakery"],
    people=["LUCAS", "BEATRICE", "CLEMENT", "PRUDENCE"],
    tn=["the fever", "{ab}'s illness", "the sickness"],
    bind={},
    ab="any",
    stmt=[
        "Beatrice has made up a bed in the front room, so her brother can sleep between calls.",
        "{Ab}'s neighbours take turns to sit up, two hours at a time.",
        "The chapel is praying for {ab} every morning.",
        "I have never seen the doctor so tired; his hands were shaking.",
        "The children are kept indoors, and the streets are strangely quiet.",
        "The fever started in Vexley, they say, and came over with the carrier.",
        "{Ab} has been in bed with the fever since {since_ref}.",
        "Doctor Webb has been twice today and will come again tonight.",
        "The fever broke at midnight, then came back by morning.",
        "Three children on Fish Street are coughing, and now {ab}.",
        "We have been boiling every drop of water, as the doctor said.",
        "Beatrice sat up with {ab} all night, reading aloud.",
        "{Ab_he} does not know anyone, and talks about ships.",
        "I took round broth and a bottle of Esther's elderberry cordial.",
        "The school is closed until the fever has passed.",
        "{Ab} is strong; {ab_he} will pull through, you will see.",
        "Keep the windows open and the fire low; that is what the doctor says.",
        "I have not seen {town} so quiet since the winter of the great frost.",
        "@LUCAS|I have seen this fever before, in Kingsbridge, and most people mend.",
    ],
    q=[
        ("How is {ab} today?",
         ["A little better; {ab_he} took some broth at noon.",
          "Worse, I am afraid; the fever is very high.",
          "Sleeping, which the doctor says is good.",
          "Awake and cross, which I take to be a good sign."]),
        ("Is the fever catching, do you think?",
         ["The doctor thinks so; he says to wash our hands and keep apart.",
          "It may be; three more houses have it now.",
          "I do not think so, but I would not take the chance."]),
        ("Has the doctor been?",
         ["Twice, and he is coming again at {clock}.",
          "He came at dawn, looking worse than the patient.",
          "Not yet; he is out at Vexley with another case."]),
        ("What can I do to help?",
         ["Take some soup round, and leave it on the step.",
          "Sit with {ab} for an hour so the family can sleep.",
          "Boil your water, and keep the children at home."]),
    ],
    excl=["Poor {ab}!", "God spare {ab_him}!", "Not the fever, not again!",
          "What a cough, you can hear it from the street!"],
    cmd=["Boil the water before you drink it.",
         "Take this broth to {ab}'s door and come straight back.",
         "Run for the doctor, and do not stop to talk.",
         "Wash your hands, and then wash them again."],
    cond=["If the fever breaks tonight, {ab} will mend.",
          "If anyone else falls ill, send for the doctor at once.",
          "If we are careful, it will not spread any further."],
    news=["{Ab}'s fever has broken, the doctor says!",
          "Two more children have gone down with it on Fish Street!",
          "The doctor has sent to Kingsbridge for medicine!"],
    items=["clean sheets", "broth", "lemons", "barley water", "a hot brick", "blankets",
           "willow bark", "honey"],
    lists=["Take {list3}, and leave them on the step.",
           "The sickroom needs {list3}."],
    cues=["A cough from the next room.", "A clock ticks loudly."],
)

TOPICS["ferry"] = dict(
    titles=["THE JENNY WREN", "THE LAST CROSSING"],
    places=["landing", "ferry", "ferry", "quay", "inn"],
    people=["JASPER", "XAVIER", "ZELDA"],
    tn=["the ferry", "the Jenny Wren", "the crossing"],
    bind=dict(
        problem=["the engine has been coughing", "the timetable has changed",
                 "the fares are going up", "the landing stage on Oxley Island is rotten",
                 "a passenger's trunk went over the side"],
    ),
    stmt=[
        "The Jenny Wren was built in Kingsbridge in 1868, and she has the brass plate to prove it.",
        "On market day the ferry smells of onions, fish and wet wool.",
        "Xavier painted the railings last week, and half the passengers went home striped.",
        "The captain rings a little bell before he casts off, and woe to anyone still ashore.",
        "The island children cross every morning to go to school in {town}.",
        "When the fog is thick, the ferry waits, and the whole island waits with it.",
        "The Jenny Wren crosses to Oxley Island twice a day, weather allowing.",
        "These days {problem}, and people are grumbling.",
        "The {ferry_time} ferry was forty minutes late this morning.",
        "Captain Knox has not missed a crossing in eleven years.",
        "A return ticket to Oxley Island costs {fare}, and it used to be less.",
        "Xavier took the tickets and dropped half of them in the harbour.",
        "The crossing takes forty minutes on a calm day and a lifetime on a rough one.",
        "Half of the island does its shopping in {town}, so the ferry is always full.",
        "The engine needs a new part from Kingsbridge, and it costs the earth.",
        "I was sick on the crossing last week, and I am not ashamed to say it.",
        "The ferry carried a cow across on Tuesday, and the cow was calmer than the passengers.",
        "On a clear day you can see seals from the deck of the ferry.",
        "@JASPER,XAVIER|We carried {number} passengers this morning, and one goat.",
    ],
    q=[
        ("!JASPER,XAVIER|What time does the next ferry leave?",
         ["At {ferry_time}, if the captain has his way.",
          "The {ferry_time}, and not a minute later.",
          "There is one at {ferry_time}, but it may be full."]),
        ("!JASPER,XAVIER|Is the ferry running today?",
         ["It is, but the sea is lumpy, so eat a dry biscuit first.",
          "Not till the wind drops, the captain says.",
          "Yes, and the captain is in a good mood for once."]),
        ("!JASPER,XAVIER|How much is a ticket to Oxley Island now?",
         ["{Fare} each way, and children half.",
          "{Fare}, which is a scandal.",
          "Still {fare}, whatever the rumours say."]),
        ("What is wrong with the engine?",
         ["Something in the pump, Hugo says.",
          "It is old, like the rest of us.",
          "Nobody knows; it just coughs and sulks."]),
    ],
    excl=["There goes the horn, hurry!", "What a crossing that was!",
          "Hold on to your hat!", "Mind the gap between the boat and the step!"],
    cmd=["Cast off the bow line, and look lively.",
         "Take the tickets, and check every one.",
         "Stow that trunk below before it goes over the side.",
         "Tell the passengers to stay off the foredeck."],
    cond=["If the engine fails halfway, we shall have to row, and I do not row.",
          "If the fog comes down, the ferry will not sail.",
          "If you miss the {ferry_time}, you will be stuck on Oxley Island till morning."],
    news=["The ferry has broken down halfway to Oxley Island!",
          "The new part for the engine has arrived from Kingsbridge!",
          "The captain has put up a new timetable on the landing!"],
    items=["tickets", "rope", "a can of oil", "a spare fender", "life belts", "a bucket",
           "the passenger book", "a flask of tea"],
    lists=["Before we sail, check {list3}.",
           "Somebody has left {list3} on the landing."],
    cues=["The ferry horn sounds twice.", "The engine coughs and catches."],
)

TOPICS["school"] = dict(
    titles=["THE MERMAID'S VOICE", "A PLAY FOR THE SCHOOL"],
    places=["school", "school", "townhall", "beach", "doctor"],
    people=["PRUDENCE", "FELIX", "IVY", "WILLOW", "KIT", "BEATRICE"],
    tn=["the school play", "the play", "the performance"],
    bind={},
    stmt=[
        "Kit is the prompter, and she whispers louder than anyone acts.",
        "The mermaid's tail is made from an old green curtain and a lot of hope.",
        "Miss Pym was up till midnight painting waves.",
        "The sea serpent's head keeps falling off, so Felix holds it on with one hand.",
        "The town hall stage creaks so loudly you can hardly hear the lines.",
        "{Other} is lending a real ship's wheel for the last scene.",
        "The children are putting on a play about a mermaid who lost her voice.",
        "The performance is on {day}, in the town hall, at six o'clock.",
        "Ivy is the mermaid, and she knows everyone's lines as well as her own.",
        "Felix is the sea serpent, and he has practised his roar until the dog hides.",
        "Miss Pym has written the play herself, every word of it.",
        "Beatrice is making the costumes from old sails and curtains.",
        "The scenery is a painted sea, with a ship that wobbles.",
        "Willow has one line, and she says it perfectly every single time.",
        "The children forget their lines, and then remember other people's instead.",
        "There will be tea and buns afterwards, and the mayor will give a prize.",
        "I painted the moon for the backcloth, and it looks rather like a cheese.",
        "Half the parents are coming, and the other half are in the play as fish.",
    ],
    q=[
        ("^FELIX,IVY,WILLOW,KIT,TOBIAS,NED|Do you know your lines yet?",
         ["Nearly all of them, apart from the long speech in the middle.",
          "I know them in the kitchen, but not on the stage.",
          "Every one, and everybody else's too."]),
        ("When is the play?",
         ["On {day}, at six, in the town hall.",
          "{Day}, if the costumes are finished.",
          "On {day}, and we have only had two rehearsals."]),
        ("Who is playing the sea king?",
         ["Ned, because he has the loudest voice.",
          "Tobias, and he is taking it very seriously.",
          "Nobody yet; Miss Pym is still asking."]),
        ("Will there be buns?",
         ["There will be buns, and lemonade, and a speech.",
          "Margery has promised a hundred.",
          "Of course; nobody would come otherwise."]),
    ],
    excl=["Louder, children, louder!", "Oh, the mermaid's tail has split!",
          "Bravo, that was splendid!", "Who moved the painted moon?"],
    cmd=["Stand on the chalk cross, and face the front.",
         "Say your line again, and this time look at the audience.",
         "Hold the ship steady while I paint the waves.",
         "Take off your fins before you sit down."],
    cond=["If you forget your line, just say something about the sea.",
          "If the curtain sticks again, we shall do the play without it.",
          "If it goes well, we might take it to Vexley."],
    news=["The costumes are finished, and the tail has sequins!",
          "The mayor says he will come to the play after all!",
          "The painted ship has fallen over and broken its mast!"],
    items=["paint", "old sails", "sequins", "cardboard", "a crown", "a fishing net",
           "green cloth", "a tin trumpet", "chalk"],
    lists=["For the costumes we need {list3}.",
           "Bring {list3} to the schoolroom on {day}."],
    cues=["Somebody drops a tin trumpet.", "Children laugh behind the curtain."],
)

TOPICS["bell"] = dict(
    titles=["THE CRACKED BELL", "A VOICE FOR THE TOWER"],
    places=["chapel", "chapel", "forge", "square", "townhall", "bakery"],
    people=["CLEMENT", "HUGO", "DORA"],
    tn=["the bell", "the chapel bell", "the cracked bell"],
    bind={},
    stmt=[
        "The bell has a name, Old Martha, cast into the rim.",
        "The concert for the bell fund is on {day}, in the chapel.",
        "Every child in {town} has put a penny in the jar, even Felix.",
        "Without the bell on Sunday, the parson rang a handbell on the steps.",
        "The crack runs from the rim almost to the crown.",
        "The foundry says a new bell would sound sweeter, but it would not be ours.",
        "The chapel bell cracked on Sunday, right in the middle of the last hymn.",
        "Now it sounds like a saucepan being hit with a spoon.",
        "The bell was cast in 1743, and it has rung for every wedding since.",
        "To recast it, we would have to send it to a foundry in Kingsbridge.",
        "Hugo says he cannot mend a bell, only a hinge or a horseshoe.",
        "Without the bell, half the town will be late for everything.",
        "The fishermen used to listen for it in the fog, to find the harbour.",
        "The parson has started a fund, and there is a jar on the bakery counter.",
        "It will cost {bell_cost} to recast the bell, so they say.",
        "My grandmother was married to the sound of that bell, and so was I.",
        "Children have been throwing pebbles at the bell tower, to hear it clank.",
        "We could hang a ship's bell instead, but it would not be the same.",
    ],
    q=[
        ("How much is in the bell fund now?",
         ["Eleven pounds and some buttons.",
          "Not enough; barely a quarter of it.",
          "More than last week, thanks to the concert."]),
        ("Can the bell be mended here?",
         ["No; it must go to the foundry in Kingsbridge.",
          "Hugo says not, and Hugo knows metal.",
          "Only if you want it to sound worse."]),
        ("How will we get the bell down from the tower?",
         ["With ropes and pulleys and a great deal of shouting.",
          "Gideon has a block and tackle from the harbour.",
          "Very carefully, and with nobody standing underneath."]),
    ],
    excl=["Listen to that dreadful clank!", "That poor old bell!", "Every penny counts!"],
    cmd=["Put a penny in the bell jar, if you can spare it.",
         "Ask Hugo to look at the bell again.",
         "Write to the foundry and ask their price."],
    cond=["If we raise the money by summer, the bell could be back for harvest.",
          "If the crack spreads, the bell may break in two.",
          "If every family gives a shilling, we shall be halfway there."],
    news=["Somebody left five pounds in the bell jar, with no name!",
          "The foundry in Kingsbridge has written with a price!",
          "The bell tower has a crack in it too, now!"],
    items=["rope", "pulleys", "a ladder", "straw for packing", "a cart", "a strong crate",
           "canvas"],
    lists=["To move the bell we need {list3}.",
           "Gideon has lent us {list3}."],
    cues=["The cracked bell clanks once, out of tune."],
)

TOPICS["catch"] = dict(
    titles=["EMPTY NETS", "THE MACKEREL YEAR"],
    places=["harbour", "quay", "netloft", "inn", "square"],
    people=["OSWALD", "URSULA", "GIDEON", "SAMUEL", "FELIX"],
    tn=["the fishing", "the catch", "the poor season"],
    bind={},
    stmt=[
        "Ursula has mended the same nets three times, and there is still nothing to put in them.",
        "The fish buyers from Kingsbridge did not even come this week.",
        "Samuel says it was the same in 1859, and the fish came back the next spring.",
        "We caught more crabs than mackerel this week, and crabs do not pay.",
        "Some families are making one herring feed four.",
        "The boats go out further every day, and come back later and emptier.",
        "The boats came back light again this morning, hardly a basket between them.",
        "The mackerel have gone somewhere else this year, and nobody knows where.",
        "Oswald says the water is too warm, and the fish have gone deep.",
        "Last year we had so much herring we were giving it away.",
        "Prices at the fish market have doubled since the spring.",
        "Some of the young men are talking about going to Kingsbridge for work.",
        "I have eaten more potatoes this month than fish, in a fishing town!",
        "The old men say the fish always come back, in the end.",
        "The gulls are thin too; that tells you something.",
        "We tried the grounds past Oxley Island, and caught a boot and a crab.",
        "A bad season is bad for everyone, the baker and the blacksmith too.",
        "I set the lobster pots twice and found them empty both times.",
    ],
    q=[
        ("How was the catch this morning?",
         ["Poor; three boxes of mackerel and a lot of weed.",
          "Better than yesterday, which is not saying much.",
          "I have seen more fish in a painting."]),
        ("Where have the fish gone, do you think?",
         ["Deep, where the water is cold.",
          "North, past Oxley Island, if Samuel is right.",
          "If I knew that, I would be a rich man."]),
        ("Will the boats go out tomorrow?",
         ["They will go out, because what else can they do.",
          "If the wind allows it, before dawn.",
          "Some will; some have given up for the week."]),
    ],
    excl=["Not a fish in the sea, it seems!", "What a season!", "Empty nets again!"],
    cmd=["Mend those nets; we will need them when the fish come back.",
         "Take the boxes up to the market, what there is of it.",
         "Try the grounds by Zephyr Rocks tomorrow."],
    cond=["If the mackerel do not come by August, some families will go hungry.",
          "If the price of fish goes any higher, nobody will buy it.",
          "If the weather turns cold, the fish may rise again."],
    news=["There are mackerel off the point, thousands of them!",
          "The Jenner boys have caught a fish as long as a man!",
          "The fish market is closing early, for lack of fish!"],
    items=["nets", "lobster pots", "bait", "twine", "tar", "hooks", "fish boxes", "salt",
           "a new oar"],
    lists=["A fisherman cannot do without {list3}.",
           "Load {list3} into the boat tonight."],
    cues=["Gulls fight over a fish head.", "A boat bumps against the quay."],
)

TOPICS["regatta"] = dict(
    titles=["THE SILVER CUP", "REGATTA DAY"],
    places=["quay", "harbour", "inn", "forge", "garden"],
    people=["HUGO", "ZELDA", "XAVIER", "TOBIAS", "GIDEON", "NED"],
    tn=["the regatta", "the boat race", "the race"],
    bind={},
    stmt=[
        "The course is marked with flags, and Felix has been told not to move them.",
        "Rosalind has put the silver cup in her window, to encourage us.",
        "Vexley have been boasting at the market, and we are tired of it.",
        "Last year somebody rowed the wrong way round the buoy and still came third.",
        "Gideon will start the race with a pistol that has not been fired in thirty years.",
        "The crew trains at dawn, and you can hear them groaning from the bakery.",
        "The regatta is on Saturday, and Vexley has a new boat with a blue hull.",
        "Our crew has been rowing round the harbour every evening this week.",
        "Vexley won last year by half a length, and they have not let us forget it.",
        "The race goes out round the buoy by Zephyr Rocks and back to the quay.",
        "There is a silver cup for the winners, and a cake for everybody else.",
        "Zelda wants to row in the race, and the mayor has not said no yet.",
        "Hugo rows at stroke, because nobody else can keep up with him.",
        "The whole town lines the harbour wall to watch, and shouts itself hoarse.",
        "Ned is taking bets at the Gull and Anchor, though he should not.",
        "The Vexley crew have been practising at dawn, in secret.",
        "Our boat is old, but she is light, and she runs true.",
        "The children's race is in washtubs, and someone always sinks.",
    ],
    q=[
        ("Who is rowing for {town} this year?",
         ["Hugo, the Jenner boys, Xavier and Tobias, with Zelda to steer.",
          "The same crew as last year, with one new oar.",
          "That depends on whose back has recovered."]),
        ("Can we beat Vexley this time?",
         ["We can, if we start well and keep our heads.",
          "Of course we can; they only won by luck.",
          "Not with that old boat, but we will try."]),
        ("What time does the race start?",
         ["At two, when the tide is slack.",
          "After the children's race, so about three.",
          "When Gideon fires the starting gun, and not before."]),
    ],
    excl=["Pull, pull, pull!", "Come on, {town}!", "Look at them go!",
          "A cup for {town} at last!"],
    cmd=["Keep your oar flat on the return stroke.",
         "Tell the crew to be at the quay at one sharp.",
         "Paint the boat's name fresh, so everyone can read it."],
    cond=["If we win, the drinks are on Rosalind.",
          "If the wind is from the south, the buoy will be hard to turn.",
          "If Vexley cheat again, I shall complain to the judges."],
    news=["Vexley's new boat has sprung a leak!",
          "Our stroke has hurt his wrist, and we need a new oarsman!",
          "The silver cup has arrived, and it is very shiny!"],
    items=["oars", "rowlocks", "a starting gun", "bunting", "flags", "a megaphone",
           "cushions", "a tin of varnish"],
    lists=["For race day we need {list3}.",
           "Gideon is bringing {list3}."],
    cues=["A cheer goes up from the quay.", "A starting gun is fired, somewhere far off."],
)

TOPICS["election"] = dict(
    titles=["THE ELECTION", "VOTES AND CIDER"],
    places=["townhall", "square", "inn", "chapel", "garden", "post"],
    people=["QUENTIN", "DORA", "ZELDA", "VICTOR", "URSULA"],
    tn=["the election", "the vote", "the election for mayor"],
    bind={},
    stmt=[
        "Crook's posters say A NEW MAYOR FOR A NEW AGE, in red letters.",
        "The mayor has been shaking hands so much his arm aches.",
        "Dora has made a list of every voter, and it runs to eleven pages.",
        "Crook's cousin from Vexley has been buying cider for everybody.",
        "The speeches are on {day} evening, outside the town hall.",
        "I asked Crook about the harbour steps, and he talked about the weather.",
        "Ambrose Crook is standing for mayor, and he has printed posters.",
        "The election is on {day} week, in the town hall.",
        "Crook promises a new road and lower rates, both at once.",
        "The mayor says he has kept the harbour open and the lamps lit, and that is enough.",
        "Everyone with a house in {town} has a vote, and everyone has an opinion.",
        "There are posters on every wall, and half of them have been torn down.",
        "Crook gave away free cider at the inn, which I call bribery.",
        "I shall vote for whoever mends the harbour steps.",
        "The debate at the chapel hall ended with somebody's hat in the harbour.",
        "My neighbour votes one way and I vote the other, so we cancel each other out.",
        "The ballot box is locked in Dora's office, and she has the only key.",
        "Crook has a fine voice and a poor memory for promises.",
    ],
    q=[
        ("~QUENTIN|Who will you vote for?",
         ["That is between me and the ballot box.",
          "The mayor; better the devil you know.",
          "Crook, if he really mends the road.",
          "I have not decided, and I am tired of being asked."]),
        ("Do you think Crook can win?",
         ["He might; people like free cider.",
          "Not in this town; people remember his mill prices.",
          "Stranger things have happened."]),
        ("When will we know the result?",
         ["Late that night, when Dora has counted every vote twice.",
          "The next morning, on the town hall steps.",
          "When the parson reads it out, and not before."]),
    ],
    excl=["Votes for sale, and cider for free!", "What a noise they make!",
          "Politics, in {town}!"],
    cmd=["Put this poster up on the bakery wall.",
         "Take that poster down at once.",
         "Go and vote before the queue gets long."],
    cond=["If Crook wins, he will put the mill prices up again.",
          "If the mayor loses, he will go back to fishing, and be happier.",
          "If it is a tie, the parson tosses a coin."],
    news=["Crook has promised a new clock for the square!",
          "The count is done, and it is very close!",
          "Somebody has painted a moustache on Crook's poster!"],
    items=["posters", "paste", "a ballot box", "pencils", "a ladder", "rosettes",
           "badges"],
    lists=["For the vote, Dora needs {list3}.",
           "Crook's men came round with {list3}."],
    cues=["Somebody shouts a slogan outside.", "A poster flaps loose in the wind."],
)

TOPICS["map"] = dict(
    titles=["THE SMUGGLER'S MAP", "X MARKS THE CAVE"],
    places=["inn", "beach", "cliff", "lamproom", "keeper", "harbour"],
    people=["NED", "SAMUEL", "FELIX", "IVY", "WILLOW", "AGATHA"],
    tn=["the map", "the old map", "the treasure"],
    bind={},
    stmt=[
        "Jack Quarrie was hanged in Kingsbridge, they say, without ever telling where he hid his money.",
        "The paper is so old it crackles like a dry leaf.",
        "There is a verse on the back of the map that nobody can make sense of.",
        "Felix and Ivy have been practising with a compass in the schoolyard.",
        "Ned keeps the map under his pillow, wrapped in oilskin.",
        "The caves flood to the roof at high water; many a smuggler drowned in them.",
        "Ned found an old map in the attic of the Gull and Anchor, behind a loose board.",
        "The map shows the caves under Jackdaw Point, with a cross in one of them.",
        "Samuel says it belonged to a smuggler called Jack Quarrie.",
        "The ink is brown and faded, and half of the writing is in a crabbed old hand.",
        "The caves can only be reached at the lowest tide of the month.",
        "There is a little drawing of a fox in one corner, and nobody knows why.",
        "If there is treasure, it belongs to the town, the mayor says.",
        "I do not believe in treasure, but I believe in caves, and caves are dangerous.",
        "The children have been digging on the beach all week.",
        "Agatha remembers her father talking about smugglers' lights on the point.",
        "The cross is marked beside a rock shaped like a sleeping dog.",
        "Somebody has torn off the bottom corner, where the directions were.",
    ],
    q=[
        ("Do you think there is really treasure?",
         ["Probably a few old bottles and a broken pot.",
          "I think there is something, or why hide the map.",
          "I think there is a story, and that is treasure enough."]),
        ("When is the next low tide?",
         ["On {day} morning, just after dawn.",
          "In three days, at {clock}; Gideon has it in his book.",
          "Not for a week, and then only for an hour."]),
        ("Who else knows about the map?",
         ["Only us, and Ned, and whoever Ned has told.",
          "Half the town, by now.",
          "Nobody, I hope, or they will be in the caves tonight."]),
    ],
    excl=["A treasure map, in {town}!", "X marks the spot!", "Look at the little fox!"],
    cmd=["Bring a lantern and a good length of rope.",
         "Keep the map dry, whatever happens.",
         "Do not tell the children, or they will go alone."],
    cond=["If the tide turns while we are in the caves, we shall be trapped.",
          "If we find gold, I am buying a new boat.",
          "If it is a hoax, it is a very old one."],
    news=["The children have found a coin on the beach, with a king's head on it!",
          "Somebody has been in the caves already; there are footprints!",
          "Samuel has remembered the rest of the smuggler's story!"],
    items=["rope", "lanterns", "a spade", "candles", "a compass", "chalk",
           "bread and cheese", "stout boots", "a crowbar"],
    lists=["For the caves we shall want {list3}.",
           "Pack {list3}, and tell nobody."],
    cues=["Waves boom in the caves below.", "A candle gutters and goes out."],
)

TOPICS["bees"] = dict(
    titles=["THE SWARM", "HONEY ON JUNIPER LANE"],
    places=["orchard", "orchard", "square", "post", "bakery", "garden", "chapel"],
    people=["ESTHER", "KIT", "MARGERY", "YVONNE"],
    tn=["the swarm", "the bee swarm", "Esther's swarm"],
    bind={},
    stmt=[
        "Esther's honey won first prize at the Vexley show three years running.",
        "A beekeeper must never quarrel near the hives, Esther says, or the bees will leave.",
        "The swarm sounded like a cart going over a wooden bridge.",
        "Esther put on her veil and walked right into the swarm, calm as a cat.",
        "There is beeswax in every candle in the chapel, all of it from Esther.",
        "The bees go to the heather in August and come back smelling of the hill.",
        "Esther's bees have swarmed, and the swarm is hanging from the chapel gate.",
        "A swarm in May is worth a load of hay; that is what they say.",
        "Esther tells her bees all the news, births, deaths and weddings.",
        "The honey this year is dark and thick, from the heather on the hill.",
        "There are bees in the bakery, drawn by the sugar.",
        "Bees will not sting you if you stay calm and move slowly.",
        "Esther has a straw skep, and she means to catch the swarm in it.",
        "The orchard hums all afternoon; you can hear it from the lane.",
        "I was stung on the ear last summer, and it swelled like a plum.",
        "Esther's honey sells at the market for {fare} a jar.",
        "The children are frightened of the swarm, and delighted by it too.",
        "Without bees there would be no apples, and no cider either.",
    ],
    q=[
        ("Where has the swarm gone now?",
         ["Into the chimney of the post office, of all places.",
          "It is hanging from the apple tree by the gate.",
          "Over the wall and into the mayor's garden."]),
        ("Will the bees sting?",
         ["Not if you leave them alone, and keep still.",
          "A swarm is gentle, Esther says, because it has nothing to defend.",
          "Only if you wave your arms about like Felix."]),
        ("!ESTHER|Is there any honey to spare this year?",
         ["A few jars, and Margery wants them all.",
          "Plenty; the heather was good.",
          "Not much; the wet spring kept them indoors."]),
    ],
    excl=["Bees, everywhere!", "Keep still, there is one on your sleeve!",
          "What a humming!"],
    cmd=["Hold the skep steady under the branch.",
         "Walk slowly, and do not swat at them.",
         "Shut the bakery door before they find the sugar."],
    cond=["If the queen goes into the skep, the rest will follow.",
          "If you are stung, scrape the sting out with a fingernail.",
          "If the swarm stays in the chimney, Yvonne will never sort a letter again."],
    news=["The swarm has settled on the town hall door!",
          "Esther has caught the swarm in her skep, hat and all!",
          "The bees have got into the post office!"],
    items=["a straw skep", "a veil", "gloves", "a smoker", "a white sheet", "a soft brush",
           "honey jars"],
    lists=["To take a swarm you need {list3}.",
           "Esther has brought {list3}."],
    cues=["A loud humming passes overhead.", "Somebody yelps; a bee has found them."],
)

TOPICS["dog"] = dict(
    titles=["WHERE IS {DOG}?", "THE DOG WITH ONE WHITE EAR"],
    places=["harbour", "beach", "bakery", "square", "cliff", "quay", "chapel"],
    people=["FELIX", "IVY", "KIT", "WILLOW", "TOBIAS"],
    tn=["{dog}", "the missing dog", "{ab}'s dog"],
    bind="dog",
    ab="any",
    stmt=[
        "{Dog} has never once missed supper, which is why we are so worried.",
        "{Ab} has not slept; {ab_he} keeps the back door open, just in case.",
        "The notice says {dog} answers to a whistle and a biscuit tin.",
        "Somebody saw a small brown dog on the Vexley road, heading inland.",
        "{Dog} once followed the ferry halfway to Oxley Island, swimming.",
        "The gulls have been very loud by the fish market; perhaps they are teasing {dog}.",
        "{Dog} has been missing since {since_ref}, and {ab} is beside {ab_self}.",
        "{Dog} is a small brown dog with one white ear and a very loud bark.",
        "Last time {dog} ran off, we found {dog_him} in the bakery, eating a pie.",
        "The children have pinned a notice to every door in {town}.",
        "{Dog} never goes further than the harbour wall, usually.",
        "Someone heard barking from the caves under Jackdaw Point last night.",
        "{Ab} has been calling {dog}'s name up and down the cliff path.",
        "Dogs always find their way home; my grandfather used to say so.",
        "{Dog} is afraid of gulls, thunder and the parson's cat.",
        "I left a bowl of water outside my door, just in case.",
        "The ferry captain says a dog was seen on the landing at Oxley Island.",
    ],
    q=[
        ("Has anyone seen {dog}?",
         ["Not a whisker.",
          "Ned thinks he saw {dog_him} by the fish market at dawn.",
          "I heard barking by the net loft, but it was the wrong bark."]),
        ("Where did you last see {dog}?",
         ["On the harbour wall, chasing a gull.",
          "At the bakery door, begging as usual.",
          "By the ferry landing, {when_ref}."]),
        ("Would {dog} come if we called?",
         ["For a sausage, {dog_he} would come from Kingsbridge.",
          "Only if it is {ab} calling.",
          "{Dog} comes when {dog_he} pleases, like a cat."]),
    ],
    excl=["{Dog}! Here, {dog}!", "Poor little {dog}!", "Is that a bark? Listen!"],
    cmd=["Call {dog}'s name as you go, and rattle this tin.",
         "Take a sausage, in case you find {dog_him}.",
         "Look under every boat on the beach."],
    cond=["If {dog} is in the caves, the tide could trap {dog_him}.",
          "If we find {dog} tonight, I shall bake {dog_him} a cake.",
          "If anyone has taken {dog}, they will answer to me."],
    news=["{Dog} has been found, asleep in the bell tower!",
          "Someone heard {dog} barking under the quay!",
          "There are little paw prints in the flour at the bakery!"],
    items=["sausages", "a lantern", "a whistle", "a lead", "a blanket", "a tin of biscuits"],
    lists=["Take {list3}, and call as you go.",
           "In my pockets I have {list3}."],
    cues=["A dog barks, far away.", "Something scratches at the door."],
)

TOPICS["railway"] = dict(
    titles=["THE IRON ROAD", "A LINE TO THE SEA"],
    places=["townhall", "square", "inn", "orchard", "garden", "landing"],
    people=["VICTOR", "QUENTIN", "ESTHER", "DORA", "JASPER"],
    tn=["the railway", "the new line", "the railway scheme"],
    bind={},
    stmt=[
        "The company man has drawn a bridge right over the ropewalk.",
        "{Other} signed the petition against the railway, and then bought shares in it.",
        "A train from Kingsbridge would take an hour, not the whole day by coach.",
        "Esther says she will chain herself to her apple trees.",
        "The young people are all for it; they want to see the world.",
        "The carrier says he will be out of work, and I fear he is right.",
        "The railway company wants to bring a line from Kingsbridge right to the harbour.",
        "A train would bring visitors, and visitors bring money.",
        "They would build the station on Esther's orchard, of all places.",
        "Trains are noisy, dirty things, and they frighten the cows.",
        "With a railway, our fish could be in Kingsbridge by breakfast.",
        "The survey men have been out on the hill with their poles and chains.",
        "The council meets on {day} to decide, and the public may speak.",
        "My cousin in Vexley says the railway doubled their trade in a year.",
        "I have never been on a train, and I do not intend to start now.",
        "The ferry would lose half its trade if the line went on to the point.",
        "Some say it will make {town} rich; some say it will make {town} ugly.",
        "There is a plan pinned up in the town hall, with the station drawn in red.",
    ],
    q=[
        ("Are you for the railway or against it?",
         ["For it, if it brings work for the young ones.",
          "Against it, and I shall say so at the meeting.",
          "I am for the trains and against the noise, which is no help at all."]),
        ("Where would the station be?",
         ["On the hill above the orchard, by the old mill.",
          "Right by the quay, so the fish can go straight on.",
          "Nobody knows; the plan changes every week."]),
        ("When will they decide?",
         ["On {day}, at the council meeting.",
          "When the company has finished counting its money.",
          "Not before the spring, I expect."]),
    ],
    excl=["A railway, here!", "Steam and soot and whistles!", "Progress, they call it!"],
    cmd=["Write your name on the petition, if you are against it.",
         "Go to the meeting and speak up for once.",
         "Look at the plan before you make up your mind."],
    cond=["If the railway comes, the town will never be the same.",
          "If they build on the orchard, Esther will lie down in front of the engine.",
          "If the fish can reach Kingsbridge fresh, the price will go up for us."],
    news=["The railway company has sent a man with a drawing of the station!",
          "The council has agreed to hear the plan on {day}!",
          "The survey men have gone off to Vexley instead!"],
    items=["a petition", "pens", "the plan", "a map of the county", "posters",
           "a list of names"],
    lists=["For the meeting, bring {list3}.",
           "The company man brought {list3}."],
    cues=["A cart rumbles past outside.", "Somebody bangs on a table for quiet."],
)

# things bound per play for topics whose "bind" is a name rather than a dict
STRANGERS = [
    ("a tall man in a grey coat", "the man in the grey coat", "m"),
    ("a woman with a red umbrella", "the woman with the red umbrella", "f"),
    ("a young man with a sketchbook", "the young man with the sketchbook", "m"),
    ("a gentleman with a gold watch and no luggage", "the gentleman with the gold watch", "m"),
    ("a quiet woman in a green travelling cloak", "the woman in the green cloak", "f"),
]
DOGS = [("Biscuit", "m"), ("Pepper", "f"), ("Jumble", "m"), ("Sixpence", "f"), ("Rags", "m")]

# ---------------------------------------------------------------------------
# Talk that fits any topic
# ---------------------------------------------------------------------------

TOPIC_TALK = dict(
    stmt=[
        "I have thought about nothing but {tn} since {since_ref}.",
        "Everyone at {gossip_place} is talking about {tn}.",
        "{Tn} is all anyone talks about in {town} these days.",
        "I lay awake half the night thinking about {tn}.",
        "Let us sit down and talk about {tn} properly, like sensible people.",
        "I mentioned {tn} to {other}, who only shrugged.",
        "{Other} has an opinion about {tn}, as usual.",
        "Do not say a word about {tn} in front of {other}.",
        "You are the only one I can talk to about {tn}.",
        "Whatever happens with {tn}, we shall manage somehow.",
        "I have written down everything I know about {tn}, and it fits on half a page.",
        "My grandmother would have known what to do about {tn}.",
        "Ursula will have told the whole town about {tn} by now.",
        "{Tn} has put everyone in a strange mood.",
        "I am sick of the subject of {tn}, and yet I cannot leave it alone.",
        "The parson spoke about {tn} in his sermon on Sunday.",
        "{Other} came to the door last night just to talk about {tn}.",
        "There is more to {tn} than meets the eye, mark my words.",
        "I said to {other} this morning that {tn} would be the death of me.",
    ],
    q=[
        ("What does {other} think about {tn}?",
         ["{Other} thinks we are all making a great fuss.",
          "{Other} has not said, and I did not like to ask.",
          "{Other} says it will all come right in the end.",
          "Ask {other} yourself; I am not a messenger."]),
        ("Who told you about {tn}?",
         ["{Other} did, at {gossip_place}, {time_ago}.",
          "Nobody told me; I worked it out for myself.",
          "Ursula, of course; who else."]),
        ("Have you told anyone else about {tn}?",
         ["Only you, and I mean to keep it that way.",
          "Only {other}, and {other} can keep a secret.",
          "Not a soul, I promise you."]),
        ("What are we going to do about {tn}?",
         ["Keep calm, and think, and then decide.",
          "Talk to the mayor, for a start.",
          "Nothing tonight; in the morning, everything."]),
    ],
)

CHAT = [
    "IN|The kettle is on, if you would like a cup of {drink}.",
    "IN|Sit by the fire and warm your hands.",
    "IN|Shut the door behind you; there is a draught like a knife.",
    "OUT|Let us stand out of the wind, by the wall.",
    "OUT|Look at the light on the water; it is like beaten silver.",
    "OUT|Mind your step; the stones are slippery here.",
    "You look {adj_mood}; is something the matter?",
    "I met {other} on the hill {time_ago}, looking {adj_mood}.",
    "I saw {other} {doing} by the {place_short} {time_ago}.",
    "My boots let in every puddle between here and the chapel.",
    "The gulls have been screaming since first light.",
    "I have {chore} before supper, and then {chore2}.",
    "I could eat a whole {loaf} by myself, I am that hungry.",
    "The clock in the square has stopped again, at {clock}.",
    "{Other} says the winter will be a hard one.",
    "Somebody has left {object} on the harbour steps again.",
    "My {body_part} has been aching since {since_ref}.",
    "I have not had a moment to myself since {since_ref}.",
    "It is {weather_adj} today, but it could be worse.",
    "{Other} has had a new coat made, and wants everyone to notice it.",
    "{Other} was in a terrible temper at {gossip_place} {time_ago}.",
    "There is a smell of {smell} all along Fish Street.",
    "Nobody in {town} can keep a secret for more than an afternoon.",
    "I have lived in {town} all my life, and it still surprises me.",
    "{Extra} has been poorly again, so I took round some {food_some}.",
    "The price of coal has gone up again, and my fire knows it.",
    "I dreamt about the sea last night, all green and quiet.",
    "The children were singing on the quay {time_ago}; it did my heart good.",
    "{Other} and {other2} have not spoken for a week, over a wheelbarrow.",
    "The days are getting {days_trend} now; have you noticed?",
    "I found a shilling in the gutter and put it in the chapel box.",
    "I have been meaning to whitewash the front wall since Easter.",
    "My cat brought me a fish head this morning, as a present.",
    "The post was late again; the coach lost a wheel near Vexley.",
    "There is talk of a dance at the town hall before Christmas.",
    "My sister writes from Kingsbridge that the streets are full of motor cars.",
    "The tide is {tide_state}, so the boats will be {boat_act} soon.",
    "I have mended this coat so often it is more patch than coat.",
    "{Other} owes me a favour, and I mean to collect it.",
    "I keep meaning to learn to swim, and I keep not doing it.",
    "Everyone is in a hurry today; it must be the wind.",
    "I walked all the way from Vexley, and my feet are on fire.",
    "There were seals on Zephyr Rocks this morning, six of them.",
    "Esther gave me a jar of honey, and I have eaten half of it already.",
    "I have been up since {early}, and I have nothing to show for it.",
    "The harbour looks {adj_view} {now_ref}.",
    "{Other} keeps asking after you.",
    "If you want my opinion, and nobody ever does, we worry too much in this town.",
    "I bought a new {thing_bought} at the market, and it broke on the way home.",
    "Old Samuel was telling his stories again {time_ago}.",
    "The lamp man forgot to light the lamps on Juniper Lane again.",
    "The wind has gone round to the {direction}.",
    "There is a new family in the cottage by the ropewalk, with five children.",
    "My mother used to say that a clean step makes a happy house.",
    "Rosalind's cider is stronger than it looks; I learned that the hard way.",
    "{Extra} sends {extra_greeting}.",
    "I have not seen {other} at {gossip_place} all week, which is not like {other}.",
    "The new curate in Vexley preaches for an hour, they say, without a note.",
    "Somebody has painted the door of the town hall a very loud yellow.",
    "I lost a glove on the cliff path, and a gull has probably eaten it.",
    "{Other} told {other2} that {rumour}, and now the whole street knows.",
    "I am going to {errand} {when_future}, and then {errand2}.",
    "When I was {age}, {memory}.",
    "The {fixture} has been {fixture_state} since {since_ref}.",
    "It was {weather_adj} {when_ref}, and {weather_result}.",
    "{Other} asked me to tell you that {message}.",
    "{Extra} has {extra_news}.",
    "I would give {price} for {wish}.",
    "There is nothing like {comfort} on a {weather_adj} {day_part}.",
    "Have you heard? {Rumour}, or so {other} says.",
]
WORDS.update(
    rumour=["the mayor dyes his whiskers", "the parson has taken up the fiddle",
            "the Jenner boys are going to sea", "the ferry is to be painted red",
            "there is a ghost in the old mill", "a whale was seen off Oxley Island",
            "the inn is to have a new sign", "Ursula is writing a book about us all",
            "the school is to get a piano", "somebody has bought the empty shop on Fish Street",
            "the harbour is to have electric lights", "a circus is coming to Vexley"],
    errand=["call on {extra}", "walk up to the chapel", "take the washing in",
            "see about my boots", "fetch the coal", "write to my cousin", "mend the garden gate",
            "buy a new wick for the lamp", "sit in the sun for an hour", "look in at the market",
            "feed the hens", "scrub the step"],
    age=["a child", "small", "ten years old", "young and foolish", "new to {town}",
         "no taller than this table"],
    memory=["the whole harbour froze one winter", "we used to swim off the quay in our clothes",
            "the ferry was a rowing boat with a sail", "the chapel had no organ, only a fiddle",
            "a ship ran aground on Zephyr Rocks and we all went down with lanterns",
            "my father took me to Kingsbridge to see the fair", "bread was a penny a loaf",
            "we had a goat called Admiral who ate a hat", "the lighthouse was lit with candles",
            "there were twice as many boats in the harbour"],
    fixture=["pump in the square", "gate at the chapel", "lamp on Juniper Lane",
             "clock over the town hall", "bench on the harbour wall",
             "step outside the post office", "signpost to Vexley"],
    fixture_state=["broken", "squeaking", "out of order", "wobbling", "leaning to one side",
                   "painted a strange green"],
    weather_result=["the washing never dried", "the boats stayed in",
                    "the children were under everyone's feet", "my hens stopped laying",
                    "the fire smoked all day", "I did not stir from the house",
                    "the whole town smelled of seaweed"],
    message=["the ladder is back in the shed", "supper is at seven", "the cat has come home",
             "the parcel has arrived", "the meeting is put off till {day}",
             "your boots are mended", "the chapel needs flowers on Sunday",
             "there is a letter waiting at the post office"],
    extra_news=["a new baby, a girl, with a great deal of hair",
                "bought a piano, though nobody in the house can play",
                "gone to Kingsbridge to see a dentist", "painted the front door blue",
                "taken in a lodger", "fallen out with the milkman", "won a prize for marrows",
                "started keeping geese"],
    price=["a week's wages", "my last shilling", "anything at all", "a whole pie",
           "my best hat"],
    wish=["a quiet afternoon", "a dry pair of boots", "one good night's sleep",
          "a cup of tea in bed", "an hour with my feet up", "a day without rain",
          "a word of thanks now and then"],
    comfort=["a hot bath", "a good fire", "a bowl of soup", "a pot of tea", "a warm bed",
             "a bit of gossip", "a slice of {loaf}"],
    day_part=["morning", "afternoon", "evening", "day"],
    early=["five o'clock", "half past four", "before six", "first light",
           "the middle of the night"],
)

# frames that report what others say; used on third-person statements only
FRAMES = [
    "{Other} says {s}", "{Other} tells me {s}", "I heard at {gossip_place} that {s}",
    "They were saying at {gossip_place} that {s}", "According to {other}, {s}",
    "I have it from {other} that {s}", "You know as well as I do that {s}",
    "It is no secret that {s}", "I keep telling {other} that {s}",
    "{Other} was saying {time_ago} that {s}", "Everybody knows that {s}",
]
TAILS = [", you know.", ", mind you.", ", I think.", ", if you ask me.", ", to be sure.",
         ", or so they say.", ", and that is a fact.", ", I am sure of it."]
COMMANDS = {"do", "let", "keep", "go", "take", "put", "hold", "tell", "fetch", "bring", "sit",
            "wait", "look", "run", "ask", "write", "give", "stop", "mind", "listen", "come"}
FIRST_PERSON = re.compile(r"\b(I|I'm|me|my|we|us|our|you|your|Here|here)\b")
WORDS["extra_greeting"] = ["best wishes", "kind regards", "a jar of pickles",
                           "apologies for Sunday", "love to you all"]

CHAT_Q = [
    ("Where have you been?",
     ["At {gossip_place}, hearing all the news.",
      "Up at the chapel, helping the parson count hymn books.",
      "Walking, just walking; I needed the air.",
      "Down at the {place_short}, if you must know."]),
    ("Have you eaten today?",
     ["A crust of {loaf} and some {drink}, that is all.",
      "Not since breakfast, now you mention it.",
      "I have, thank you; I had a {bun} on the way."]),
    ("What time is it?",
     ["Nearly {clock_now}, by the chapel clock.",
      "Gone {clock_now}; we are late.",
      "I have no idea; my watch stopped on Tuesday."]),
    ("Did you sleep last night?",
     ["Hardly a wink; the wind was at the windows.",
      "Like a log, thank you.",
      "Not much; the cat was out fighting again."]),
    ("Have you seen {other} today?",
     ["Only from a distance, by the {place_short}.",
      "{Other} went past at a great rate, {time_ago}.",
      "Not today, and not yesterday either; it is odd."]),
    ("What is the news from {gossip_place}?",
     ["Nothing you have not heard, except that {other} has a new hat.",
      "Ursula says there will be rain, and a wedding, and a quarrel.",
      "The same as always: prices up, spirits down."]),
    ("How is your {body_part} today?",
     ["Stiff, but it will do.",
      "Better, thank you; the doctor's liniment works wonders.",
      "Worse, since you ask."]),
    ("Are you warm enough?",
     ["Warm enough; do not fuss.",
      "No, but I will be if we keep moving.",
      "My hands are cold, but my heart is warm."]),
    ("Would you like a {bun}?",
     ["I never say no to a {bun}.",
      "Not now, thank you; perhaps later.",
      "Only if it is a fresh one."]),
    ("Is it going to rain, do you think?",
     ["Before nightfall, by the look of the sky.",
      "Not today; the gulls are out at sea.",
      "It always rains when I have washing out."]),
    ("What are you doing out at this hour?",
     ["The same as you, I expect.",
      "I could not sleep, so I came out for the air.",
      "Looking for {other}, who is never where I expect."]),
    ("Will you come to supper on {day}?",
     ["Gladly, if I may bring a pie.",
      "I would like that very much.",
      "If I am not working, yes."]),
    ("Why are you smiling?",
     ["Because the sun is out, and so am I.",
      "I am remembering something {other} said.",
      "No reason at all, and that is the best kind."]),
    ("Can you lend me {lendable}?",
     ["Of course; bring it back when you are done.",
      "I can, if you promise to return it this time.",
      "I lent mine to {other} and never saw it again."]),
    ("Do you remember the winter of the great frost?",
     ["Remember it? The harbour froze right across.",
      "I was only a child, but I remember the ice on the nets.",
      "I remember we burned the old gate to keep warm."]),
    ("Shall I walk with you?",
     ["I would be glad of the company.",
      "No need; I know the way.",
      "Only as far as the corner, then."]),
    ("Are you well? You look {adj_mood}.",
     ["Only tired; it has been a long week.",
      "I am well enough, thank you.",
      "I have had better days, but I have had worse."]),
    ("How is your mother keeping?",
     ["Strong as an ox, and twice as stubborn.",
      "Better, since the warm weather.",
      "She asks after you, every time I see her."]),
    ("IN|Who was that at the door?",
     ["Only Kit, with a message.",
      "{Other}, wanting to borrow something, as usual.",
      "Nobody; just the wind."]),
]

EXCL = [
    "What a day it has been!", "Goodness me, look at the time!", "Heaven help us all!",
    "Well, I never did!", "Of all the foolish things!", "Listen to those gulls!",
    "Bless my soul!", "Oh, for a bit of peace and quiet!", "How you have grown!",
    "Mercy, my poor feet!", "What a sight you are!",
    "Well, I declare!", "Oh, do stop fussing!", "Not again!",
    "You gave me a fright!", "Well, of all the cheek!",
    "There is never a quiet moment in {town}!", "Oh, my poor {body_part}!",
    "What would your mother say!", "Such a lot of fuss about nothing!", "Mercy me!",
    "What next, I wonder!", "What a muddle!", "Good gracious!",
]

CMD = [
    "Sit down and tell me everything from the beginning.",
    "Keep your voice down; half the street can hear you.",
    "Hand me that {tool}, would you?",
    "Fetch {other}, and be quick about it.",
    "IN|Take your boots off before you come in any further.",
    "Come here and look at this.",
    "Wait here, and do not move until I come back.",
    "Put that down before you break it.",
    "Go home and get some sleep.",
    "Listen to me, just for once.",
    "Write it down, so we do not forget.",
    "Button your coat; it is colder than it looks.",
    "Tell {other} I shall call round {when_future}.",
    "OUT|Give me your arm; the path is steep here.",
    "IN|Open the window and let some air in.",
    "Do not tell {other} I said so.",
    "Eat something; you are wasting away.",
    "Bring a lantern; it will be dark before we are back.",
    "Hold this for me a moment.",
    "Stop fidgeting and listen.",
]

COND = [
    "If you see {other}, say I want a word.",
    "If it keeps raining like this, we shall all grow fins.",
    "If I had a penny for every time I heard that, I should be rich.",
    "If the wind drops, we might have a fine evening after all.",
    "If you need me, I shall be at {gossip_place}.",
    "IN|If you are cold, there is a shawl on the chair.",
    "If anyone asks, you did not see me.",
    "If we hurry, we can be there before {clock}.",
    "If my knees were younger, I would go myself.",
    "If you want something done properly, ask a busy person.",
    "If {other} says so, it must be true, heaven help us.",
    "If the tide is right, the boats will go out at dawn.",
    "If the coach is on time for once, I will eat my hat.",
    "If you are going past the bakery, bring me a {loaf}.",
    "If you had listened to me, we would not be in this muddle.",
    "If it is fine on Sunday, we could walk to the point.",
]

OPENERS = ["Well, ", "Still, ", "Mind you, ", "Honestly, ", "To tell the truth, ",
           "Between ourselves, ", "Anyway, ", "Do you know, ", "I tell you, ", "All the same, ",
           "As I was saying, ", "You know, ", "Listen, ", "The thing is, ", "Besides, ",
           "Of course, ", "Truth be told, ", "If you ask me, ", "And another thing: ",
           "Now then, "]

ANSWER_OPENERS = ["Well, ", "Oh, ", "To be honest, ", "Let me think. ", "Ah, ", "Hmm. ",
                  "Between you and me, ", "Truthfully, "]

REACTIONS = [
    "That is true enough.", "I know, I know.", "You always say that.", "So I have heard.",
    "Do not remind me.", "I was thinking the very same thing.", "Well, I never.",
    "That is not what I heard.", "You may be right.", "I dare say.", "Quite right.",
    "Nonsense.", "Oh, hush.", "Fancy that.", "Just so.", "I suppose you are right.",
    "Perhaps, perhaps.", "Exactly what I said.", "You are not wrong.", "Heaven knows.",
    "That is one way of looking at it.", "Hmm. Maybe.", "I should think so too.",
    "True, true.", "There you are, then.", "That is the trouble.",
    "I will believe it when I see it.", "Never mind that now.", "Yes, yes.",
    "Well, there it is.", "Now, now.", "Oh, come now.", "You do talk.",
    "I know what you mean.", "All right, all right.", "So it is.", "I had not thought of that.",
    "How like you to say so.", "No doubt.", "Ah, well.", "Just as I feared.",
    "That makes two of us.", "I could not agree more.", "Steady on.", "Quite so.",
    "That is as may be.", "Funny you should say that.", "Indeed.", "Right you are.",
    "I see.", "Is that all?",
]

CUES_IN = ["A clock strikes in the next room.", "The fire settles in the grate.",
           "Rain begins to patter on the window.", "Somebody knocks next door.",
           "A kettle starts to sing."]
CUES_OUT = ["Gulls cry overhead.", "A cart rattles past.", "The wind gets up a little.",
            "A dog barks down the lane.", "The chapel clock strikes the hour."]

NEWS_Q = [
    ("Who told you that?",
     ["{Other} did, not five minutes ago.",
      "Nobody told me; I saw it with my own eyes.",
      "It is all over {gossip_place}."]),
    ("Are you sure?",
     ["As sure as I am standing here.",
      "I saw it myself, or I would not say it.",
      "Sure enough to run all the way here."]),
    ("When did this happen?",
     ["Not half an hour ago.",
      "Just now, while you were sitting here.",
      "This morning, and the whole town knows already."]),
]
NEWS_REPLY = [
    "Well, that changes everything.", "I do not believe it!", "Good heavens!",
    "Then we must tell the others at once.", "Sit down and get your breath back.",
    "Of all the things to happen!", "I knew something was up.", "Well, well.",
]

GREET = {
    "dawn": ["Good morning. You are up early.", "Morning. I did not expect anyone at this hour.",
             "You are about before the gulls this morning."],
    "morning": ["Good morning.", "Morning! There you are.", "Good morning to you."],
    "day": ["Good afternoon.", "Afternoon! I hoped I would catch you.",
            "Good afternoon to you."],
    "evening": ["Good evening.", "Evening. It is getting dark early.",
                "Good evening to you."],
    "night": ["Who is that? Oh, it is you.", "You are out late.",
              "Good evening, though it is nearer night."],
    "any": ["Ah, just the person I wanted to see.", "Hello. I thought I heard your step.",
            "Well, here you are at last.", "There you are. I was hoping you would come.",
            "Hello, hello. Come and stand by me."],
}
ENTER_GREET = ["Oh, there you all are.", "There you are! I have been looking everywhere.",
               "I am glad I found you.", "Thank goodness you are here.", "Quick, listen to this.",
               "News, news!", "I thought I would find you here."]
GREET_REPLY = {
    "dawn": ["Good morning. I could not sleep.", "Morning. The early bird, and all that."],
    "morning": ["Good morning to you too.", "Morning. What a morning it is."],
    "day": ["Good afternoon.", "Afternoon. I cannot stop long."],
    "evening": ["Good evening.", "Evening. I came as soon as I could."],
    "night": ["It is only me. I could not sleep either.", "Yes, it is late, I know."],
    "any": ["Here I am, for my sins.", "I came as soon as I could.", "Hello. I cannot stop long.",
            "And here I am.", "Hello yourself."],
}
FAREWELL = [
    "I must get back to {home}; there is work waiting.",
    "I will see you at {gossip_place} tomorrow, then.",
    "Give my love to {other}.",
    "Go carefully.",
    "Well, I have said my piece.",
    "I shall think about what you said.",
    "Come and find me if anything changes.",
    "Until tomorrow, then.",
    "Take care of yourself; I mean it.",
    "I had better go before {other} sends out a search party.",
    "I must be off; {home} will not wait for me.",
    "That is enough talk for one {tod_word}.",
]
FAREWELL_TIME = {
    "night": ["Good night, and mind the steps.", "Good night. Sleep if you can."],
    "evening": ["Good night, and mind the steps.", "Good evening to you, then."],
    "dawn": ["Good day to you, and a quiet one.", "I shall see you later on, then."],
    "morning": ["Good day to you.", "I shall see you later on, then."],
    "day": ["Good day to you.", "I shall see you this evening, I expect."],
}
FAREWELL_REPLY = [
    "And you.", "Goodbye, and thank you.", "I will. Off you go.", "Mind how you go.",
    "Goodbye, then.", "I shall.", "Until tomorrow.", "Go on, then.", "Bless you.",
]

# ---------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------

SLOT = re.compile(r"\{([A-Za-z_0-9]+)\}")
VOC_MARK = "\x01"          # placeholder for a vocative, filled in after name checks
AN_EXCEPT = ("one", "once", "use", "usu", "uni", "eur")
# first words that may be lower-cased when something is put in front of a sentence
LOWER_OK = {"the", "a", "an", "it", "there", "we", "you", "he", "she", "they", "this",
            "that", "my", "your", "our", "his", "her", "nobody", "everyone", "everybody",
            "no", "if", "what", "some", "half", "every", "without", "last", "now", "these",
            "only", "not", "nothing", "somebody", "someone", "all", "people", "dogs", "money",
            "bees", "trains", "children", "iron", "rest", "three", "two", "when", "since",
            "for", "from", "keep", "let", "do", "go", "take", "put", "hold", "tell",
            "paying", "but", "with", "on", "yesterday"}


def capfirst(s):
    return s[:1].upper() + s[1:] if s else s


class Play:
    """Values fixed for one play: who is in it and what each topic is about."""

    def __init__(self, rng, cast):
        self.rng = rng
        self.cast = cast
        self.binds = {}

    def topic_binds(self, topic):
        if topic in self.binds:
            return self.binds[topic]
        rng, T, b = self.rng, TOPICS[topic], {}
        b["day"] = rng.choice(WORDS["day"])     # one weekday per topic and play
        if isinstance(T["bind"], dict):
            for k, vals in T["bind"].items():
                b[k] = rng.choice(vals)
        if T.get("ab"):
            pool = [c for c in CAST_ORDER if c not in self.cast]
            if T["ab"] == "adult":
                pool = [c for c in pool if c not in YOUNG]
            ab = rng.choice(pool)
            g = CAST[ab][0]
            b["ab"] = CAST[ab][5][0]
            b["ab_key"] = ab
            b["ab_he"], b["ab_him"], b["ab_his"], b["ab_self"] = (
                ("he", "him", "his", "himself") if g == "m" else ("she", "her", "her", "herself"))
        if T["bind"] == "stranger":
            desc, short, g = rng.choice(STRANGERS)
            b.update(stranger=desc, str_short=short,
                     str_he="he" if g == "m" else "she", str_his="his" if g == "m" else "her")
        if T["bind"] == "dog":
            name, g = rng.choice(DOGS)
            b.update(dog=name, dog_he="he" if g == "m" else "she",
                     dog_him="him" if g == "m" else "her")
        self.binds[topic] = b
        return b


class Scene:
    """One scene: a place, a time, a topic and the people on stage."""

    def __init__(self, rng, play, topic, loc, tod, people, usage):
        self.rng = rng
        self.usage = usage      # template -> times used in the whole file
        self.used = set()       # templates used in this scene
        self.topic = topic
        self.T = TOPICS[topic]
        self.loc = loc
        self.indoor = LOCATIONS[loc][1]
        self.period = tod[1]
        self.present = list(people)
        self.bind = dict(play.topic_binds(topic))
        self._name_re = {}

    # -- slot expansion -----------------------------------------------------

    def absent_people(self):
        gone = set(self.present)
        if "ab_key" in self.bind:
            gone.add(self.bind["ab_key"])
        return [c for c in CAST_ORDER if c not in gone]

    def resolve(self, key, memo, speaker):
        rng = self.rng
        if key == "voc":
            return VOC_MARK
        if key in self.bind:
            return self.bind[key]
        if key == "tn":
            return rng.choice(self.T["tn"])
        if key.startswith("other"):
            used = [v for k, v in memo.items() if k.startswith("other")]
            pool = [c for c in self.absent_people() if CAST[c][5][0] not in used]
            pick = rng.choice(pool)
            return CAST[pick][5][0] if rng.random() < 0.7 else rng.choice(CAST[pick][5])
        if key == "home":
            return CAST[speaker][6]
        if key == "clock_now":
            return rng.choice(CLOCK_NOW[self.period])
        if key == "now_ref":
            return NOW_REF[self.period]
        if key == "tod_word":
            return TOD_WORD[self.period] if self.period != "night" else "night"
        if key in ("list3", "list4"):
            items = rng.sample(self.T["items"], int(key[-1]))
            return ", ".join(items[:-1]) + " and " + items[-1]
        base = key.rstrip("0123456789")
        if base in WORDS:
            taken = [v for k, v in memo.items() if k.rstrip("0123456789") == base]
            return rng.choice([w for w in WORDS[base] if w not in taken] or WORDS[base])
        raise KeyError("unknown slot {%s} in topic %s" % (key, self.topic))

    def expand(self, template, memo, speaker):
        def sub(m):
            key = m.group(1)
            low = key.lower()
            if low not in memo:
                memo[low] = self.expand(self.resolve(low, memo, speaker), memo, speaker)
            val = memo[low]
            return capfirst(val) if key[0].isupper() else val
        return SLOT.sub(sub, template)

    # -- checks -------------------------------------------------------------

    def name_re(self, speaker):
        key = (tuple(self.present), speaker)
        if key not in self._name_re:
            names = []
            for c in self.present:
                names += CAST[c][7]
                names += RELATIVE_WORDS.get((speaker, c), [])
            names += [capfirst(n) for n in names if n[0].islower()]   # "The mayor ..."
            self._name_re[key] = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
        return self._name_re[key]

    def allowed(self, template, speaker, listener=None):
        """Strip tags; return the bare template, or None if it does not fit here."""
        while "|" in template:
            tag, template = template.split("|", 1)
            if tag == "IN" and not self.indoor:
                return None
            if tag == "OUT" and self.indoor:
                return None
            if tag.startswith("@") and speaker not in tag[1:].split(","):
                return None
            if tag.startswith("!") and speaker in tag[1:].split(","):
                return None
            if tag.startswith("~") and listener in tag[1:].split(","):
                return None
            if tag.startswith("^") and listener not in tag[1:].split(","):
                return None
        if "{home}" in template and self.loc in HOME_LOCS.get(CAST[speaker][6], ()):
            return None         # nobody says "I must get back to the bakery" in the bakery
        return template

    def vocative(self, speaker, listener):
        rng = self.rng
        if (speaker, listener) in RELATIVE_VOCS:
            return rng.choice(RELATIVE_VOCS[(speaker, listener)])
        c = CAST[listener]
        if speaker in YOUNG and listener not in YOUNG:
            return rng.choice(c[4])
        return rng.choice(c[3])

    def choose(self, templates, key=lambda t: t):
        """Pick a template, preferring ones not yet heard in this scene and rarely used."""
        cands = [self.rng.choice(templates) for _ in range(3)]
        fresh = [t for t in cands if key(t) not in self.used]
        return min(fresh or cands, key=lambda t: self.usage.get(key(t), 0))

    def mark(self, t):
        self.used.add(t)
        self.usage[t] = self.usage.get(t, 0) + 1

    def realise(self, templates, speaker, listener, memo=None, tries=12):
        """Pick a template that fits, expand it, check it names nobody on stage."""
        for attempt in range(tries):
            raw = self.choose(templates)
            if raw in self.used and attempt < tries - 3:
                continue
            t = self.allowed(raw, speaker)
            if t is None:
                continue
            m = dict(memo) if memo else {}
            text = self.expand(t, m, speaker)
            if self.name_re(speaker).search(text):
                continue
            self.mark(raw)
            return self.finish(text, speaker, listener), m
        return None, None

    def finish(self, text, speaker, listener):
        while VOC_MARK in text:
            text = text.replace(VOC_MARK, self.vocative(speaker, listener), 1)
        text = re.sub(r"\b([Aa]) ([aeiou]\w*)",
                      lambda m: m.group(0) if m.group(2).lower().startswith(AN_EXCEPT)
                      else m.group(1) + "n " + m.group(2), text)
        return capfirst(text)

    # -- sentences ------------------------------------------------------------

    def add_vocative(self, s, speaker, listener):
        if s[-1] in ".!?" and s.count(",") < 2 and len(s) < 58:
            return s[:-1] + ", " + self.vocative(speaker, listener) + s[-1]
        return s

    def add_frame(self, s, speaker, listener):
        first = s.split(" ", 1)[0].lower()
        body = s[0].lower() + s[1:] if first in LOWER_OK else s
        for _ in range(5):
            framed, _ = self.realise(FRAMES, speaker, listener, {"s": body})
            if framed and len(framed) < 100:
                return framed
        return s

    def add_opener(self, s):
        first = s.split(" ", 1)[0].strip(",;:.!?").lower()
        if first not in LOWER_OK or first == "i":
            return s
        return self.rng.choice(OPENERS) + s[0].lower() + s[1:]

    def statement(self, speaker, listener):
        """One non-question sentence on the scene's topic, the speaker's trade or life."""
        rng, T = self.rng, self.T
        kinds = [("stmt", 30), ("talk", 8), ("role", 9), ("chat", 14), ("excl", 8),
                 ("cmd", 7), ("cond", 7), ("list", 3)]
        for _ in range(20):
            kind = weighted(rng, kinds)
            if kind == "stmt":
                pool = T["stmt"]
            elif kind == "talk":
                pool = TOPIC_TALK["stmt"]
            elif kind == "role":
                pool = ROLE_LINES[speaker]
            elif kind == "chat":
                pool = CHAT
            elif kind == "list":
                pool = T["lists"]
            else:
                pool = T[kind] if rng.random() < 0.6 else {"excl": EXCL, "cmd": CMD,
                                                            "cond": COND}[kind]
            s, _ = self.realise(pool, speaker, listener)
            if s is None:
                continue
            third = (s.endswith(".") and not FIRST_PERSON.search(s) and ";" not in s
                     and s.split(" ", 1)[0].lower() not in COMMANDS)
            if kind == "stmt" and third and rng.random() < 0.3:
                s = self.add_frame(s, speaker, listener)
            elif kind in ("stmt", "talk", "chat") and third and rng.random() < 0.15:
                s = s[:-1] + rng.choice(TAILS)
            elif kind in ("stmt", "talk", "chat", "role") and rng.random() < 0.16:
                s = self.add_opener(s)
            elif rng.random() < 0.16:
                s = self.add_vocative(s, speaker, listener)
            return s
        raise RuntimeError("no statement fits")

    def question(self, speaker, listener):
        """A question; returns (text, answers, memo) so the next speaker can answer it."""
        rng = self.rng
        r = rng.random()
        pool = self.T["q"] if r < 0.55 else TOPIC_TALK["q"] if r < 0.7 else CHAT_Q
        for _ in range(20):
            raw, answers = self.choose(pool, key=lambda qa: qa[0])
            if raw in self.used:
                continue
            q = self.allowed(raw, speaker, listener)
            if q is None:
                continue
            memo = {}
            text = self.expand(q, memo, speaker)
            if self.name_re(speaker).search(text):
                continue
            self.mark(raw)
            text = self.finish(text, speaker, listener)
            if rng.random() < 0.15:
                text = self.add_vocative(text, speaker, listener)
            return text, answers, memo
        return None, None, None

    def answer(self, pending, speaker, listener):
        answers, memo = pending
        memo = {k: v for k, v in memo.items() if k not in ("voc", "home")}
        s, _ = self.realise(answers, speaker, listener, memo, tries=20)
        if s is None:
            s = self.finish(self.rng.choice(["I cannot say.", "I wish I knew.",
                                             "Ask me again tomorrow.",
                                             "That I do not know."]), speaker, listener)
        r = self.rng.random()
        if r < 0.2:
            s = self.add_vocative(s, speaker, listener)
        elif r < 0.35:
            first = s.split(" ", 1)[0].strip(",;:.!?").lower()
            if first in LOWER_OK or first in ("only", "not", "nothing", "none"):
                op = self.rng.choice(ANSWER_OPENERS)
                s = op + (s if op.endswith(". ") else s[0].lower() + s[1:])
        return s

    def pick(self, pool, speaker, listener, voc=0.0):
        s, _ = self.realise(pool, speaker, listener, tries=30)
        if s is None:       # everything in the pool names someone on stage
            s = self.finish(self.rng.choice(["Well, well.", "Indeed.", "I see."]),
                            speaker, listener)
        if self.rng.random() < voc:
            s = self.add_vocative(s, speaker, listener)
        return s


def weighted(rng, pairs):
    total = sum(w for _, w in pairs)
    r = rng.random() * total
    for item, w in pairs:
        r -= w
        if r < 0:
            return item
    return pairs[-1][0]


# ---------------------------------------------------------------------------
# Layout: sentences to lines, speeches, directions
# ---------------------------------------------------------------------------

NO_LINE_END = {"the", "a", "an", "my", "his", "her", "its", "their", "our", "your", "of",
               "to", "in", "on", "at", "by", "for", "with", "from", "i"}


def wrap(sentence, width=WRAP):
    """Break a long sentence into lines, preferring a comma or semicolon near the middle."""
    if len(sentence) <= width:
        return [sentence]
    mid = len(sentence) / 2
    for pattern, least in ((r"[,;] ", 20),
                           (r" (?=(and|but|so|when|where|which|with|until|because|or|if|as) )", 25),
                           (r" ", 25)):
        cuts = [m.end() for m in re.finditer(pattern, sentence)
                if least <= m.end() <= len(sentence) - least and m.end() <= width + 1
                and sentence[:m.end()].split()[-1].lower() not in NO_LINE_END]
        if cuts:
            break
    cut = min(cuts, key=lambda c: abs(c - mid))
    return [sentence[:cut].rstrip()] + wrap(sentence[cut:].lstrip(), width)


def layout(rng, sentences):
    """Join short sentences onto one line (always when very short); wrap long ones."""
    lines, i = [], 0
    while i < len(sentences):
        s = sentences[i]
        while i + 1 < len(sentences):
            joined = len(s) + 1 + len(sentences[i + 1])
            if not ((len(s) < 26 and joined <= 64) or (joined <= 68 and rng.random() < 0.35)):
                break
            i += 1
            s = s + " " + sentences[i]
        lines += wrap(s)
        i += 1
    return lines


def names_phrase(keys):
    if len(keys) == 1:
        return keys[0]
    return ", ".join(keys[:-1]) + " and " + keys[-1]


ROMAN = ["I", "II", "III", "IV", "V"]


class Writer:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.out = []
        self.titles_used = set()
        self.usage = {}

    # -- scenes -----------------------------------------------------------------

    def scene(self, play, number, topic):
        rng = self.rng
        T = TOPICS[topic]
        loc = rng.choice(T["places"]) if rng.random() < 0.75 else rng.choice(list(LOCATIONS))
        if loc == "kitchen_any":
            loc = rng.choice(["inn", "keeper", "doctor", "townhall", "post"])
        tod = rng.choice(TIMES)
        if loc == "ferry" and tod[1] == "night":
            tod = ("afternoon", "day")

        # who is on stage: people who belong here or to the topic, from the play's cast
        size = weighted(rng, [(2, 50), (3, 35), (4, 15)])
        liked = [c for c in play.cast if c in LOCATIONS[loc][2] or c in T["people"]]
        rest = [c for c in play.cast if c not in liked]
        rng.shuffle(liked)
        rng.shuffle(rest)
        people = (liked + rest)[:size] if rng.random() < 0.8 else (rest + liked)[:size]
        entering = None
        if rng.random() < 0.4:
            spare = [c for c in play.cast if c not in people]
            if spare and loc != "ferry":
                entering = rng.choice(spare)

        # whoever belongs to the place is the one found there alone
        locals_ = [p for p in people if p in LOCATIONS[loc][2]]
        if locals_:
            people.remove(locals_[0])
            people.insert(0, locals_[0])
        sc = Scene(rng, play, topic, loc, tod, people, self.usage)
        out = self.out
        out += ["SCENE %d. %s, %s." % (number, LOCATIONS[loc][0], tod[0]), ""]
        first, others = people[0], people[1:]
        alone = bool(locals_) and rng.random() < 0.6
        if alone:
            out += ["%s alone, %s. Enter %s." % (first, rng.choice(LOCATIONS[loc][3]),
                                                  names_phrase(others)), ""]
        else:
            out += ["Enter %s." % names_phrase(people), ""]

        n = rng.randint(9, 20)
        enter_at = rng.randint(3, n - 4) if entering else -1
        exit_at = rng.randint(n // 2, n - 3) if len(people) >= 3 and rng.random() < 0.3 else -1
        pending = None          # (answers, memo) of an open question
        prev = None
        news_given = False
        if exit_at == enter_at:
            exit_at = -1
        for i in range(n):
            if i == enter_at and pending:
                # never interrupt a question with an entrance
                enter_at = i + 1 if i + 1 < n - 2 else -1
            # choose speaker and listener
            if i == enter_at:
                speaker = entering
                sc.present.append(entering)
                out += ["Enter %s, %s." % (entering, rng.choice(WORDS["manner"])), ""]
                listener = rng.choice([p for p in sc.present if p != speaker])
            elif i == 0 and alone:
                speaker, listener = first, rng.choice(others)
            elif i == 1 and alone:
                speaker, listener = prev_listener, first
            elif pending and prev_listener in sc.present:
                speaker, listener = prev_listener, prev     # the one asked answers
            else:
                cands = [p for p in sc.present if p != prev]
                speaker = rng.choice(cands)
                listener = prev if prev and prev != speaker else rng.choice(
                    [p for p in sc.present if p != speaker])
            last = i == n - 1
            sents = []

            if i == enter_at:
                sents.append(sc.pick(ENTER_GREET + GREET[sc.period], speaker, listener, 0.3))
                sents.append(sc.pick(T["news"], speaker, listener))
                news_given = True
                pending = None
            elif pending:
                sents.append(sc.answer(pending, speaker, listener))
                pending = None
            elif i == 0:
                sents.append(sc.pick(GREET["any"] + GREET[sc.period], speaker, listener, 0.5))
            elif i == 1:
                sents.append(sc.pick(GREET_REPLY["any"] + GREET_REPLY[sc.period],
                                     speaker, listener, 0.5))
            elif news_given:
                sents.append(sc.pick(NEWS_REPLY, speaker, listener))
            elif rng.random() < 0.3:
                sents.append(sc.pick(REACTIONS, speaker, listener))

            leaving = i == exit_at and i != enter_at and len(sc.present) > 2
            if last or leaving:
                pool = FAREWELL + FAREWELL_TIME[sc.period]
                if i == n - 1 and prev is not None and rng.random() < 0.5 and not sents:
                    pool = FAREWELL_REPLY
                sents.append(sc.pick(pool, speaker, listener, 0.4))
                pending = None
            else:
                want = weighted(rng, [(1, 30), (2, 38), (3, 22), (4, 10)])
                if i == enter_at:
                    want = len(sents) + (rng.random() < 0.4)
                elif news_given:
                    # someone reacts to the news: often asks about it
                    news_given = False
                    if rng.random() < 0.5:
                        q, answers = rng.choice(NEWS_Q)
                        sents.append(sc.finish(q, speaker, listener))
                        pending = (answers, {})
                        want = 0
                while len(sents) < want:
                    sents.append(sc.statement(speaker, listener))
                if want and i < n - 2 and i != enter_at and rng.random() < 0.38:
                    q, answers, memo = sc.question(speaker, listener)
                    if q:
                        if len(sents) >= 3:
                            sents.pop()
                        sents.append(q)
                        pending = (answers, memo)
                if i == n - 2 and not pending:
                    sents.append(sc.pick(FAREWELL + FAREWELL_TIME[sc.period], speaker, listener,
                                         0.4))
            prev_listener = listener
            lines = layout(rng, sents)
            while len(lines) > 4 and len(sents) > 1:
                # keep the opening answer or greeting and, if possible, the closing line
                if len(sents) > 2:
                    del sents[-2]
                elif sents.pop().endswith("?"):
                    pending = None
                lines = layout(rng, sents)
            out.append(speaker + ":")
            out += lines
            out.append("")
            prev = speaker

            if leaving:
                out += ["Exit %s." % speaker, ""]
                sc.present.remove(speaker)
                prev = None
            elif not pending and rng.random() < 0.06:
                cues = T["cues"] + (CUES_IN if sc.indoor else CUES_OUT)
                out += [rng.choice(cues), ""]

        if len(sc.present) >= 2 and rng.random() < 0.25:
            stay = rng.choice(sc.present)
            go = [p for p in sc.present if p != stay]
            out += ["Exit %s. %s remains, %s." % (names_phrase(go), stay,
                                                   rng.choice(WORDS["remain_act"])), ""]
        else:
            out += ["Exeunt." if len(sc.present) > 1 else "Exit %s." % sc.present[0], ""]
        return sc

    # -- plays ------------------------------------------------------------------

    def play(self, main):
        rng = self.rng
        T = TOPICS[main]
        size = rng.randint(7, 11)
        cast = [c for c in T["people"] if rng.random() < 0.8]
        others = [c for c in CAST_ORDER if c not in cast]
        rng.shuffle(others)
        cast = (cast + others)[:size]
        play = Play(rng, cast)
        play.topic_binds(main)
        side = rng.sample([t for t in TOPICS if t != main], 2)
        for t in side:
            play.topic_binds(t)

        titles = [t for t in T["titles"] if t not in self.titles_used] or T["titles"]
        title = rng.choice(titles)
        self.titles_used.add(title)
        memo = {k.upper(): v.upper() for k, v in play.binds[main].items()}
        title = SLOT.sub(lambda m: memo[m.group(1)], title)

        body_start = len(self.out)
        n_acts = weighted(rng, [(2, 25), (3, 55), (4, 20)])
        for a in range(n_acts):
            self.out += ["ACT %s" % ROMAN[a], ""]
            for s in range(rng.randint(2, 4)):
                topic = main if rng.random() < 0.55 else rng.choice(side)
                self.scene(play, s + 1, topic)
        # the persons list names everybody who speaks, in cast order
        body = self.out[body_start:]
        del self.out[body_start:]
        speakers = {line[:-1] for line in body if line.endswith(":") and line[:-1] in CAST}
        persons = ["%s, %s" % (CAST[c][1], CAST[c][2]) for c in CAST_ORDER if c in speakers]
        self.out += [title, "", "PERSONS OF THE PLAY", ""] + persons + [""] + body
        self.out += ["THE END", "", ""]

    def run(self, target):
        self.out += ["TINY PLAYS FROM QUILLHAVEN", "",
                     "Short plays about a small harbour town, written for the ffn-ladder",
                     "repository. The town, its people and every word are invented.", "", ""]
        order = []
        while True:
            if not order:
                order = list(TOPICS)
                self.rng.shuffle(order)
            self.play(order.pop())
            if size_of(self.out) >= target:
                break
        text = "\n".join(self.out).rstrip("\n") + "\n"
        return text


def size_of(lines):
    return sum(len(l) + 1 for l in lines)


def generate(seed=SEED, target=TARGET_BYTES):
    return Writer(seed).run(target)


def check(text):
    """The promises made in data/README.md; raise if the text breaks one."""
    chars = set(text)
    assert text.isascii(), "non-ASCII characters"
    assert 300_000 <= len(text) <= 700_000, "size %d out of range" % len(text)
    assert 60 <= len(chars) <= 90, "%d distinct characters" % len(chars)
    for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ .,;:!?'-\n":
        assert c in chars, "character %r missing" % c


@command
def main(argv=None):
    ap = ArgumentParser(__file__, __doc__)
    ap.add_argument("--out", default=OUT_PATH, help="where to write (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate in memory and compare with --out; write nothing")
    args = ap.parse_args(argv)
    # --out checked before the text is generated: --check only reads it, a write needs a file
    # path in a folder that takes new files
    if args.check and os.path.exists(args.out) and not os.path.isfile(args.out):
        raise UserError("--out %s exists and is not a regular file: name the file to compare "
                        "with" % args.out)  # a FIFO would hang the read
    if not args.check:
        check_output(args.out, "--out")
    try:
        text = generate()
        check(text)
        data = text.encode("ascii")
        digest = hashlib.sha256(data).hexdigest()
        if args.check:
            try:
                with open(args.out, "rb") as f:
                    same = f.read() == data
            except FileNotFoundError:
                same = False
            except OSError as e:
                raise UserError("cannot read --out %s (%s): make it readable, or name another "
                                "file" % (args.out, e.strerror or e)) from None
            print("%s: %s" % (args.out, "identical" if same else "DIFFERENT"))
            return 0 if same else 1
        # written beside it, then moved into place: a full disk leaves the old file as it was
        with aside(args.out) as tmp, open(tmp, "wb") as f:
            f.write(data)
    except KeyboardInterrupt:
        raise KeyboardInterrupt("%s was not changed" % args.out) from None
    print("wrote %s: %d bytes, %d lines, sha256 %s"
          % (args.out, len(data), text.count("\n"), digest))
    print("%d distinct characters: %r" % (len(set(text)), "".join(sorted(set(text)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
