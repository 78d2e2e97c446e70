//! Pet names for `random_pet`: `length` words joined by the separator,
//! ending in an animal name, preceded by an adjective and, for longer
//! names, adverbs (`name`, `adjective-name`,
//! `adverb-adjective-name`, ...), as hashicorp/random shapes them. The
//! word lists are terrace's own.

use crate::rand::Source;
use terrace_sdk::Error;

const ADVERBS: &[&str] = &[
    "ably",
    "aptly",
    "barely",
    "boldly",
    "briefly",
    "brightly",
    "busily",
    "calmly",
    "carefully",
    "cheaply",
    "cleanly",
    "clearly",
    "closely",
    "deeply",
    "deftly",
    "early",
    "easily",
    "evenly",
    "fairly",
    "fast",
    "finely",
    "firmly",
    "freely",
    "fully",
    "gently",
    "gladly",
    "gravely",
    "greatly",
    "hardly",
    "highly",
    "humbly",
    "justly",
    "keenly",
    "kindly",
    "largely",
    "lightly",
    "loosely",
    "loudly",
    "mainly",
    "merely",
    "mildly",
    "mostly",
    "neatly",
    "newly",
    "nicely",
    "openly",
    "partly",
    "plainly",
    "politely",
    "poorly",
    "promptly",
    "properly",
    "proudly",
    "purely",
    "quickly",
    "quietly",
    "rapidly",
    "rarely",
    "readily",
    "really",
    "richly",
    "rightly",
    "roughly",
    "safely",
    "sharply",
    "simply",
    "slowly",
    "smoothly",
    "softly",
    "solely",
    "surely",
    "sweetly",
    "swiftly",
    "tightly",
    "truly",
    "vastly",
    "warmly",
    "weekly",
    "widely",
    "wildly",
    "wisely",
];

const ADJECTIVES: &[&str] = &[
    "able", "alert", "amber", "ample", "apt", "azure", "balmy", "bold", "brave", "brief", "bright",
    "brisk", "busy", "calm", "casual", "civil", "clean", "clear", "clever", "close", "cool",
    "cosy", "crisp", "curious", "daring", "dear", "deep", "eager", "early", "easy", "elegant",
    "epic", "equal", "even", "exact", "fair", "famous", "fancy", "fast", "fine", "firm", "fit",
    "fluent", "fond", "free", "fresh", "full", "gentle", "glad", "golden", "good", "grand",
    "great", "handy", "happy", "hardy", "helpful", "honest", "humble", "ideal", "jolly", "just",
    "keen", "kind", "large", "lasting", "light", "lively", "loyal", "lucky", "mellow", "merry",
    "mighty", "modest", "neat", "nice", "noble", "open", "patient", "plain", "polite", "proud",
    "quick", "quiet", "rapid", "ready", "rich", "robust", "safe", "sharp", "shining", "simple",
    "smart", "smooth", "solid", "sound", "steady", "still", "sunny", "sure", "swift", "tidy",
    "true", "vast", "warm", "wise", "witty", "young", "zesty",
];

const NAMES: &[&str] = &[
    "aardvark",
    "albatross",
    "alpaca",
    "anchovy",
    "ant",
    "antelope",
    "armadillo",
    "badger",
    "barnacle",
    "bat",
    "bear",
    "beaver",
    "bee",
    "beetle",
    "bison",
    "boar",
    "bobcat",
    "buffalo",
    "bunny",
    "buzzard",
    "camel",
    "canary",
    "caribou",
    "cat",
    "catfish",
    "cheetah",
    "chicken",
    "chipmunk",
    "cicada",
    "clam",
    "cobra",
    "cod",
    "condor",
    "cougar",
    "cow",
    "coyote",
    "crab",
    "crane",
    "cricket",
    "crow",
    "cuckoo",
    "deer",
    "dingo",
    "dodo",
    "dog",
    "dolphin",
    "donkey",
    "dove",
    "dragon",
    "duck",
    "eagle",
    "eel",
    "elephant",
    "elk",
    "emu",
    "falcon",
    "ferret",
    "finch",
    "firefly",
    "flamingo",
    "fox",
    "frog",
    "gazelle",
    "gecko",
    "gibbon",
    "giraffe",
    "gnu",
    "goat",
    "goose",
    "gopher",
    "gorilla",
    "grouse",
    "gull",
    "hamster",
    "hare",
    "hawk",
    "hedgehog",
    "heron",
    "hippo",
    "hornet",
    "horse",
    "hound",
    "hyena",
    "ibex",
    "iguana",
    "impala",
    "jackal",
    "jaguar",
    "jay",
    "kangaroo",
    "kid",
    "kingfisher",
    "kit",
    "kite",
    "kiwi",
    "koala",
    "lamb",
    "lark",
    "lemur",
    "leopard",
    "lion",
    "lizard",
    "llama",
    "lobster",
    "lynx",
    "macaw",
    "magpie",
    "mako",
    "mallard",
    "marmot",
    "marten",
    "mink",
    "mole",
    "mongoose",
    "monkey",
    "moose",
    "moth",
    "mouse",
    "mule",
    "newt",
    "ocelot",
    "octopus",
    "opossum",
    "orca",
    "oriole",
    "osprey",
    "ostrich",
    "otter",
    "owl",
    "ox",
    "oyster",
    "panda",
    "panther",
    "parrot",
    "peacock",
    "pelican",
    "penguin",
    "pheasant",
    "pig",
    "pigeon",
    "pony",
    "porpoise",
    "possum",
    "puffin",
    "puma",
    "quail",
    "rabbit",
    "raccoon",
    "ram",
    "raven",
    "reindeer",
    "rhino",
    "robin",
    "salmon",
    "seal",
    "shark",
    "sheep",
    "shrew",
    "skink",
    "skunk",
    "sloth",
    "snail",
    "snake",
    "sparrow",
    "spider",
    "squid",
    "squirrel",
    "stag",
    "starling",
    "stork",
    "swan",
    "swift",
    "tapir",
    "termite",
    "tern",
    "tiger",
    "toad",
    "tortoise",
    "toucan",
    "trout",
    "tuna",
    "turkey",
    "turtle",
    "viper",
    "vole",
    "vulture",
    "walrus",
    "wasp",
    "weasel",
    "whale",
    "wolf",
    "wombat",
    "wren",
    "yak",
    "zebra",
];

fn pick(source: &mut Source, words: &[&'static str]) -> Result<&'static str, Error> {
    let index = source.below(words.len() as u64)? as usize;
    Ok(words.get(index).copied().unwrap_or("pet"))
}

/// A name of `length` words joined by `separator`.
pub fn generate(length: usize, separator: &str) -> Result<String, Error> {
    let mut source = Source;
    let mut words: Vec<&str> = Vec::with_capacity(length);
    for _ in 2..length {
        words.push(pick(&mut source, ADVERBS)?);
    }
    if length >= 2 {
        words.push(pick(&mut source, ADJECTIVES)?);
    }
    if length >= 1 {
        words.push(pick(&mut source, NAMES)?);
    }
    Ok(words.join(separator))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_have_the_right_shape() {
        for length in 0..6 {
            let name = generate(length, "-").unwrap();
            let words: Vec<&str> = if name.is_empty() {
                Vec::new()
            } else {
                name.split('-').collect()
            };
            assert_eq!(words.len(), length, "{name}");
            if let Some(last) = words.last() {
                assert!(NAMES.contains(last), "{name}");
            }
            if length >= 2 {
                assert!(ADJECTIVES.contains(&words[length - 2]), "{name}");
            }
            for adverb in words.iter().take(length.saturating_sub(2)) {
                assert!(ADVERBS.contains(adverb), "{name}");
            }
        }
        assert!(generate(3, "")
            .unwrap()
            .chars()
            .all(|c| c.is_ascii_lowercase()));
    }

    #[test]
    fn word_lists_are_clean() {
        for list in [ADVERBS, ADJECTIVES, NAMES] {
            let mut sorted = list.to_vec();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), list.len());
            assert!(list
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_lowercase())));
        }
    }
}
