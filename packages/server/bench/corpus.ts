// Realistic, deterministic support-knowledge text for the HTTP benchmark: manuals, policies and
// troubleshooting notes for a fictional range of home appliances. Products, parts and error
// codes are drawn from Zipf distributions over a few hundred values each, so a few are common
// and most are rare, as in a real knowledge base: posting lists and BM25 costs look like prose,
// not like a handful of words repeated in every chunk.

/** A seeded pseudo-random generator (mulberry32): the same corpus and questions on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const FAMILIES = ["Kettlebird", "Toastwell", "Brewline", "Frothy", "Aircrisp", "Blendmate", "Steamly", "Chillbox", "Grindsmith", "Souslab", "Pressia", "Juicero"];
const PRODUCTS = FAMILIES.flatMap((family) => Array.from({ length: 30 }, (_, index) => `${family} ${family[0]}${100 + index * 7}`));
const PART_NOUNS = (
  "lid filter base element cord tank cartridge dial panel tray carafe wand basket blade seal hinge display dock thermostat spout " +
  "gasket board fan plate handle latch light timer valve sensor motor pump nozzle grille gauge switch fuse spring bearing"
).split(" ");
const PART_MODIFIERS = ["upper", "lower", "inner", "outer", "front", "rear", "left", "right", "main", "spare", "magnetic", "ceramic", "silicone", "steel", "glass"];
const PARTS = PART_MODIFIERS.flatMap((modifier) => PART_NOUNS.map((noun) => `${modifier} ${noun}`));
const SYMPTOMS = [
  "does not switch on", "leaks at the bottom", "makes a clicking noise", "stops before the water boils", "smells of burnt plastic",
  "does not pair with the app", "trips the circuit breaker", "heats unevenly", "keeps restarting", "loses its Wi-Fi connection",
  "shows a blinking amber light", "is slower than before", "beeps three times", "turns off after a few seconds", "leaves limescale flakes",
  "rattles during the spin cycle", "overheats on the highest setting", "shows the wrong temperature", "drips after brewing", "vibrates loudly",
];
const REMEDIES = [
  "unplug the appliance and let it cool for 30 minutes", "rinse the filter under warm running water", "run a descaling cycle with citric acid",
  "hold the power button for ten seconds to reset the control board", "check that the base sits flat and is dry", "update the firmware from the app",
  "replace the seal with the spare from the box", "wipe the contacts with a dry microfibre cloth", "move the router closer or use the 2.4 GHz band",
  "fill the tank above the minimum line", "tighten the lid until it clicks", "contact support with the serial number from the rating label",
  "soak the removable parts in soapy water overnight", "recalibrate the sensor from the service menu", "check the fuse in the plug",
];
const COUNTRIES = ["the Netherlands", "Belgium", "Germany", "France", "Austria", "Denmark", "Sweden", "Spain", "Portugal", "Italy", "Ireland", "Poland", "Finland", "Norway"];
const MATERIALS = ["brushed steel", "borosilicate glass", "BPA-free plastic", "anodised aluminium", "food-grade silicone", "tempered glass"];
const VERBS = ["order", "replace", "clean", "inspect", "register", "calibrate", "lubricate", "reattach"];

/** Rank-weighted choice (Zipf, s = 1, shifted so the head is not too steep). */
function zipfPicker<T>(items: readonly T[], shift = 3): (random: () => number) => T {
  const cumulative: number[] = [];
  let sum = 0;
  items.forEach((_, rank) => cumulative.push((sum += 1 / (rank + shift))));
  return (random) => {
    const target = random() * sum;
    let low = 0;
    let high = items.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return items[low]!;
  };
}

const product = zipfPicker(PRODUCTS);
const part = zipfPicker(PARTS);
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1));

function sentence(random: () => number): string {
  const name = product(random);
  const piece = part(random);
  switch (between(random, 0, 9)) {
    case 0:
      return `If your ${name} ${pick(random, SYMPTOMS)}, ${pick(random, REMEDIES)}.`;
    case 1:
      return `Clean the ${piece} of the ${name} every ${between(random, 2, 12)} weeks; a neglected ${piece.split(" ")[1]} is the most common cause of error E${between(random, 1, 80)}.`;
    case 2:
      return `Returns from ${pick(random, COUNTRIES)} are accepted within ${pick(random, [14, 30, 60])} days of delivery when the ${name} is in its original packaging.`;
    case 3:
      return `When the ${piece} ${pick(random, SYMPTOMS)}, ${pick(random, REMEDIES)} before you ask for a replacement.`;
    case 4:
      return `The ${name} draws ${between(random, 600, 2_400)} W, holds ${(0.5 + random() * 1.5).toFixed(1)} litres and has a ${pick(random, MATERIALS)} body.`;
    case 5:
      return `Serial numbers starting with ${String.fromCharCode(65 + between(random, 0, 25))}${between(random, 100, 999)} ship with a spare ${piece} and a printed quick-start guide.`;
    case 6:
      return `The limited warranty of the ${name} covers the ${piece} for ${between(random, 1, 5)} years; damage from limescale or unofficial repairs is excluded.`;
    case 7:
      return `Orders above ${pick(random, [35, 50, 75])} euros ship free to ${pick(random, COUNTRIES)}, and spare parts leave our warehouse within ${between(random, 1, 4)} working days.`;
    case 8:
      return `Error E${between(random, 1, 80)} on the ${name} means the ${piece} reported a fault: ${pick(random, REMEDIES)}.`;
    default:
      return `To ${pick(random, VERBS)} the ${piece}, open the ${name.split(" ")[0]} app, choose Settings, then Maintenance, and follow the ${between(random, 3, 9)} steps shown.`;
  }
}

/** A paragraph of 450–750 characters: one chunk for the default chunker (800 characters). */
export function paragraph(random: () => number): string {
  const sentences: string[] = [];
  let length = 0;
  while (length < 450) {
    const next = sentence(random);
    if (length + next.length + 1 > 750) continue;
    sentences.push(next);
    length += next.length + 1;
  }
  return sentences.join(" ");
}

/** A document of `paragraphs` paragraphs, with a title. */
export function supportDocument(random: () => number, index: number, paragraphs: number): { source: string; title: string; text: string } {
  const topic = pick(random, ["Troubleshooting", "Care and cleaning", "Warranty and returns", "Getting started", "Parts and accessories", "Shipping"]);
  const title = `${product(random)}: ${topic}`;
  const text = Array.from({ length: paragraphs }, () => paragraph(random)).join("\n\n");
  return { source: `kb/${String(index + 1).padStart(4, "0")}.md`, title, text };
}

/** A question a customer might send. */
export function question(random: () => number): string {
  const name = product(random);
  const piece = part(random);
  switch (between(random, 0, 5)) {
    case 0:
      return `My ${name} ${pick(random, SYMPTOMS)}. What should I do?`;
    case 1:
      return `How often should I clean the ${piece} of my ${name}?`;
    case 2:
      return `Is a broken ${piece} covered by the warranty on the ${name}?`;
    case 3:
      return `Where can I order a new ${piece} for the ${name}, and how long does shipping to ${pick(random, COUNTRIES)} take?`;
    case 4:
      return `What does error E${between(random, 1, 80)} mean on a ${name}?`;
    default:
      return `The ${piece} ${pick(random, SYMPTOMS)} on my ${name}. Can I return it?`;
  }
}
