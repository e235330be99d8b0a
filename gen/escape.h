/*
 * One escaping policy for every string meshgen echoes into something
 * another program reads (escape.c): a terminal, a C compiler, a JSON or
 * SARIF parser, an XML reader, a shell, Make or Ninja, GitHub's runner
 * (docs/reference.md, "Echoed strings"). A string is escaped for its format
 * where it is written, and cut there when a bound is given; no other code
 * of the generator escapes. Plain C over a struct mg_buf: it knows nothing
 * of where a string came from.
 */
#ifndef MG_ESCAPE_H
#define MG_ESCAPE_H

#include <stddef.h>

struct mg_buf;

/* What a string is escaped for. */
enum mg_esc {
    /* A line of terminal text (diagnostics, usage errors): a line break, a
     * tab or a carriage return as \n, \t, \r, every other C0 or C1 control
     * character, DEL and every byte that is not UTF-8 as \xNN (per byte),
     * so no input splits a line or sends a terminal a control sequence. */
    MG_ESC_TEXT,
    /* The inside of a C string literal: '"', '\\' and '?' (no trigraph)
     * escaped, \n and \t, every other byte outside printable ASCII as a
     * three-digit octal escape: the literal holds the same bytes. */
    MG_ESC_C,
    /* The inside of a JSON string (RFC 8259): '"' and '\\' escaped, \n \r
     * \t, other controls (C0, DEL, C1) and U+2028/U+2029 as \u escapes,
     * and each byte that is not UTF-8 as \ufffd, so the text is valid
     * UTF-8 whatever the input holds. */
    MG_ESC_JSON,
    /* XML 1.0 character data or an attribute value (the SVG): < > & " as
     * entities, the characters XML cannot hold even escaped (controls, DEL,
     * U+FFFE, U+FFFF) as '?', each byte that is not UTF-8 as U+FFFD. */
    MG_ESC_XML,
    /* The inside of a sh single-quoted word: ' as '\'' (end the quote, an
     * escaped quote, a new quote); every other byte as it is. */
    MG_ESC_SH,
    /* The text of a sh comment: a line break ends the line and starts
     * another comment ("\n# "), so eval runs none of it. */
    MG_ESC_SH_COMMENT,
    /* A prerequisite of a Make rule, as GCC's -MD writes it and GNU Make and
     * Ninja read it back: ' ', '#' and ':' after a backslash (the
     * backslashes before them doubled), '$' as "$$". Refused (mg_escape
     * returns -1): what a Make rule cannot name (mg_esc_refusal). */
    MG_ESC_MAKE,
    /* A target of a Make rule: as MG_ESC_MAKE, and '%' refused too (Make
     * would take the rule for a pattern rule). */
    MG_ESC_MAKE_TARGET,
    /* A GitHub workflow command's message: '%', CR and LF as %25, %0D, %0A
     * (what the runner decodes); each byte that is not UTF-8 as U+FFFD. */
    MG_ESC_GITHUB,
    /* A GitHub workflow command's property (file=, title=): as
     * MG_ESC_GITHUB, and ':' and ',' as %3A and %2C. */
    MG_ESC_GITHUB_PROPERTY,
    /* The path of a URI reference (RFC 3986): every byte but the unreserved
     * ones and '/' percent-encoded (%XX), so any bytes survive exactly. */
    MG_ESC_URI,
    MG_ESC__COUNT
};

/* Appends s, escaped for fmt, to b. Returns 0, or -1 when fmt cannot
 * express s (only the Make formats refuse) and then appends nothing. */
int mg_escape(struct mg_buf *b, enum mg_esc fmt, const char *s);

/* mg_escape of a bounded part of s: all of it when it is at most
 * head + tail + 3 bytes long; else its first head bytes and its last tail
 * bytes (each cut at a UTF-8 character boundary) with "..." between them.
 * A tail of 0 keeps the head, where a value starts; a path keeps a tail,
 * its file name. */
int mg_escape_cut(struct mg_buf *b, enum mg_esc fmt, const char *s, size_t head, size_t tail);

/* The first control character of s (C0, DEL or C1: a C1 written in UTF-8,
 * or a byte 0x80 to 0x9F of its own), or -1 when it holds none: what a
 * name that is printed as it is may not hold, since a terminal takes
 * U+009B for the start of a control sequence as it takes ESC '['. */
long mg_first_control(const char *s);

/* Why fmt cannot express s ("a newline", "';'", ...), or NULL when it can.
 * Only the Make formats refuse anything: a control character (a newline
 * would start a rule of its own, a tab or a carriage return Ninja reads
 * as the end of the name), ';' (a recipe follows), '=' (a variable is
 * assigned), '|' (order-only prerequisites follow), a final '\\' (it
 * would escape what follows), and in a target '%'. */
const char *mg_esc_refusal(enum mg_esc fmt, const char *s);

#endif /* MG_ESCAPE_H */
