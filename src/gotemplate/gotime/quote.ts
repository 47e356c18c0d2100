// The time package's own quote (not strconv's): every byte of a non-ASCII or control
// character is written as \xNN. Input is a byte string (one char per UTF-8 byte), which
// is how the parsers here see their input, so the escapes name the same bytes Go's do.

export function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) out += '\\x' + c.toString(16).padStart(2, '0');
    else {
      if (c === 0x22 || c === 0x5c) out += '\\';
      out += s[i]!;
    }
  }
  return out + '"';
}

/** UTF-8 bytes as a string of one char per byte, for Go's byte-indexed string logic. */
export function toBytes(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

export function fromBytes(s: string): string {
  return Buffer.from(s, 'latin1').toString('utf8');
}
