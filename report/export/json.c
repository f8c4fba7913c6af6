/* SPDX-License-Identifier: MIT */
/* JSON string literals; see json.h. */
#include "json.h"

#include <stdint.h>

int utf8_len(const unsigned char *p)
{
	int n;
	uint32_t c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) || (n == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return n;
}

void json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', out);
	while (*p) {
		int n = utf8_len(p);

		if (!n) {
			fputs("\\ufffd", out);
			p++;
		} else if (n > 1) {
			fwrite(p, 1, (size_t)n, out);
			p += n;
		} else {
			unsigned char c = *p++;

			if (c == '"' || c == '\\')
				fprintf(out, "\\%c", c);
			else if (c == '\n')
				fputs("\\n", out);
			else if (c == '\t')
				fputs("\\t", out);
			else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}
