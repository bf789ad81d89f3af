import { SaxesParser } from 'saxes';

// XML for the SEPA files: a small writer (our files are made of elements and text only)
// and a reader of what banks send us (statements, status reports), which is untrusted
// input uploaded by a person or fetched from a bank.
//
// The reader refuses what XML's attacks need before it parses anything: a DOCTYPE (where
// entities are declared: "billion laughs" expansion, external entities that read files or
// call URLs), an ENTITY declaration anywhere, an input over the size cap, an encoding
// other than UTF-8, and nesting deeper than any ISO 20022 message goes. The parser is
// saxes, a strict XML 1.0 parser that processes no DTD at all: an entity other than the
// five predefined ones and character references is an error, never a lookup.

export interface XmlNode {
  name: string;
  attrs?: Record<string, string>;
  /** Text, or child elements; an element with neither is not written. */
  body: string | readonly (XmlNode | null)[];
}

/** Text or an attribute value (always written in double quotes) with &, <, > and " escaped. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);
}

/** `node` as indented XML, after the XML declaration. */
export function writeXml(node: XmlNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${writeNode(node, '')}`;
}

function writeNode(node: XmlNode, indent: string): string {
  const attrs = Object.entries(node.attrs ?? {})
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
  if (typeof node.body === 'string') return `${indent}<${node.name}${attrs}>${escapeXml(node.body)}</${node.name}>\n`;
  const children = node.body.filter((c): c is XmlNode => c !== null).map((c) => writeNode(c, `${indent}  `));
  return `${indent}<${node.name}${attrs}>\n${children.join('')}${indent}</${node.name}>\n`;
}

/** An element read from a message: its local name (no prefix), namespace, attributes, children and text. */
export interface XmlElement {
  name: string;
  ns: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export class XmlRefused extends Error {}

/** 20 MiB: a day's statement of a busy account is a few MiB. */
export const XML_MAX_BYTES = 20 * 1024 * 1024;
/** ISO 20022 statements nest about 12 levels deep; anything far past that is not one. */
const MAX_DEPTH = 40;

/** The document element of `input`, or XmlRefused saying why not. */
export function readXml(input: Uint8Array | string, maxBytes = XML_MAX_BYTES): XmlElement {
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (size > maxBytes) throw new XmlRefused(`the file is larger than ${maxBytes} bytes`);
  let text: string;
  try {
    text = typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: true }).decode(input);
  } catch {
    throw new XmlRefused('the file is not UTF-8 text');
  }
  if (/<!DOCTYPE/i.test(text)) throw new XmlRefused('a DOCTYPE is not accepted (entities could expand or read other files)');
  if (/<!ENTITY/i.test(text)) throw new XmlRefused('an ENTITY declaration is not accepted');
  const decl = /^\uFEFF?<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(text);
  if (decl && decl[1]!.toLowerCase() !== 'utf-8') throw new XmlRefused(`the encoding must be UTF-8, not ${decl[1]}`);
  return parseTree(text.replace(/^\uFEFF/, ''));
}

function parseTree(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  // Checked again inside the parser, should a DOCTYPE ever get past the text check above.
  parser.on('doctype', () => {
    throw new XmlRefused('a DOCTYPE is not accepted');
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_DEPTH) throw new XmlRefused(`elements nest deeper than ${MAX_DEPTH} levels`);
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) attrs[a.local] = a.value;
    const el: XmlElement = { name: tag.local, ns: tag.uri, attrs, children: [], text: '' };
    stack.at(-1)?.children.push(el);
    root ??= el;
    stack.push(el);
  });
  parser.on('text', (t) => {
    const top = stack.at(-1);
    if (top) top.text += t;
  });
  parser.on('closetag', () => void stack.pop());
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof XmlRefused) throw error;
    throw new XmlRefused(`the file is not well-formed XML: ${(error as Error).message}`);
  }
  if (!root) throw new XmlRefused('the file has no document element');
  return root;
}

/** The children of `el` named `name`. */
export function childrenOf(el: XmlElement | undefined, name: string): XmlElement[] {
  return el ? el.children.filter((c) => c.name === name) : [];
}

/** The element at `path` below `el` (the first at each step), or undefined. */
export function at(el: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let cur = el;
  for (const name of path) cur = cur?.children.find((c) => c.name === name);
  return cur;
}

/** The trimmed text at `path` below `el`, or undefined when it is missing or empty. */
export function textAt(el: XmlElement | undefined, ...path: string[]): string | undefined {
  const t = at(el, ...path)?.text.trim();
  return t ? t : undefined;
}
