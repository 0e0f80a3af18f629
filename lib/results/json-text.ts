// JSON text for the result files. JSON.stringify cannot write bigint (64-bit
// seeds must stay exact), turns NaN into null silently only for numbers at
// the top level of arrays/objects, and indents arrays of numbers one value a
// line (a 600k-sample latency array would be 600k lines). This writer keeps
// bigints as exact integer literals, writes non-finite numbers as null and
// puts arrays of plain numbers on one line.

function isScalarArray(v: unknown[]): boolean {
  return v.every((x) => x === null || typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean');
}

function scalar(v: unknown): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return JSON.stringify(v);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return undefined;
  }
}

function write(v: unknown, indent: string, step: string, out: string[]): void {
  const s = scalar(v);
  if (s !== undefined) {
    out.push(s);
    return;
  }
  if (typeof v !== 'object' || v === null) {
    out.push('null');
    return;
  }
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    write(Array.from(v as unknown as ArrayLike<number>), indent, step, out);
    return;
  }
  const inner = indent + step;
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push('[]');
      return;
    }
    if (isScalarArray(v)) {
      out.push('[' + v.map((x) => scalar(x) ?? 'null').join(', ') + ']');
      return;
    }
    out.push('[\n');
    v.forEach((x, i) => {
      out.push(inner);
      // undefined/functions inside arrays become null, as JSON.stringify does.
      if (scalar(x) === undefined && (typeof x !== 'object' || x === null)) out.push('null');
      else write(x, inner, step, out);
      out.push(i + 1 < v.length ? ',\n' : '\n');
    });
    out.push(indent + ']');
    return;
  }
  const obj = v as Record<string, unknown>;
  if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') {
    write((obj as { toJSON: () => unknown }).toJSON(), indent, step, out);
    return;
  }
  const keys = Object.keys(obj).filter((k) => {
    const t = typeof obj[k];
    return t !== 'undefined' && t !== 'function' && t !== 'symbol';
  });
  if (keys.length === 0) {
    out.push('{}');
    return;
  }
  out.push('{\n');
  keys.forEach((k, i) => {
    out.push(inner, JSON.stringify(k), ': ');
    write(obj[k], inner, step, out);
    out.push(i + 1 < keys.length ? ',\n' : '\n');
  });
  out.push(indent + '}');
}

/** Pretty JSON text (2-space indent, trailing newline) that keeps bigints exact. */
export function toJsonText(value: unknown, step = '  '): string {
  const out: string[] = [];
  write(value, '', step, out);
  out.push('\n');
  return out.join('');
}
