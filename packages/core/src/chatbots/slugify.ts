/**
 * A URL-friendly slug: lower-case ASCII, diacritics folded, words joined by `-`
 * (`Crème Brûlée Bot!` → `creme-brulee-bot`). A name with no ASCII letters or digits gives
 * `chatbot`.
 */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "") // combining marks left by the decomposition: the diacritics
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[øØ]/g, "o")
    .replace(/[łŁ]/g, "l")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return slug === "" ? "chatbot" : slug;
}
