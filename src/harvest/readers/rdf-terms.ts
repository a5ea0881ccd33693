/**
 * A parsed RDF page as DCAT-AP mapping reads it: each subject's properties in document order, whatever
 * parser produced the quads (n3's terms and jsonld.js's plain objects share `termType` and `value`).
 * Named graphs are merged: a catalog page is read as one graph.
 */
export interface RdfTerm {
  termType: string;
  value: string;
  language?: string;
  datatype?: { value: string };
}

export interface RdfQuad {
  subject: RdfTerm;
  predicate: RdfTerm;
  object: RdfTerm;
}

const key = (term: RdfTerm) => `${term.termType === 'BlankNode' ? '_:' : ''}${term.value}`;

export class RdfGraph {
  private readonly properties = new Map<string, Map<string, RdfTerm[]>>();
  /** Subjects in the order of their first triple. */
  readonly subjects: RdfTerm[] = [];

  constructor(quads: Iterable<RdfQuad>) {
    for (const q of quads) {
      const subjectKey = key(q.subject);
      let props = this.properties.get(subjectKey);
      if (!props) {
        props = new Map();
        this.properties.set(subjectKey, props);
        this.subjects.push(q.subject);
      }
      const values = props.get(q.predicate.value) ?? [];
      if (
        !values.some(
          (v) =>
            v.termType === q.object.termType &&
            v.value === q.object.value &&
            v.language === q.object.language &&
            v.datatype?.value === q.object.datatype?.value,
        )
      ) {
        values.push(q.object);
      }
      props.set(q.predicate.value, values);
    }
  }

  /** The objects of (subject, predicate), in document order. */
  objects(subject: RdfTerm, predicate: string): RdfTerm[] {
    return this.properties.get(key(subject))?.get(predicate) ?? [];
  }

  /** The predicates of a subject, in document order. */
  predicates(subject: RdfTerm): string[] {
    return [...(this.properties.get(key(subject))?.keys() ?? [])];
  }

  /** The first of them, or null. */
  object(subject: RdfTerm, predicate: string): RdfTerm | null {
    return this.objects(subject, predicate)[0] ?? null;
  }

  /** Every (subject, object) pair of a predicate, in document order. */
  *pairs(predicate: string): Generator<[RdfTerm, RdfTerm]> {
    for (const subject of this.subjects) for (const object of this.objects(subject, predicate)) yield [subject, object];
  }

  /**
   * The text of a property in one language: untagged literals first, then English (`en`, `en-GB`), then
   * the first language met. Several values of the chosen language are all returned (keywords).
   */
  texts(subject: RdfTerm, predicate: string): string[] {
    const literals = this.objects(subject, predicate).filter((t) => t.termType === 'Literal' && t.value.trim());
    if (literals.length === 0) return [];
    const lang = (t: RdfTerm) => (t.language ?? '').toLowerCase();
    const untagged = literals.filter((t) => !lang(t));
    const english = literals.filter((t) => lang(t) === 'en' || lang(t).startsWith('en-'));
    const chosen = untagged.length ? untagged : english.length ? english : literals.filter((t) => lang(t) === lang(literals[0]!));
    return chosen.map((t) => t.value.trim());
  }

  /** The first text of a property in the preferred language (see texts), or null. */
  text(subject: RdfTerm, predicate: string): string | null {
    return this.texts(subject, predicate)[0] ?? null;
  }
}
