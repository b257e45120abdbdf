"""Code 128 (code set B) as SVG, for the slip number printed on a fill or credit slip: a scanner at
the table or the cage reads the number back. The symbology as ISO/IEC 15417 defines it: a start
character, the data, a modulo-103 check character and the stop pattern, with quiet zones of ten
modules on either side."""

from django.utils.html import format_html, format_html_join

# The bar/space widths (in modules) of the 107 symbols, by value: bar, space, bar, space, bar,
# space (the stop, value 106, ends with a seventh element: its final bar).
PATTERNS = (
    "212222",
    "222122",
    "222221",
    "121223",
    "121322",
    "131222",
    "122213",
    "122312",
    "132212",
    "221213",
    "221312",
    "231212",
    "112232",
    "122132",
    "122231",
    "113222",
    "123122",
    "123221",
    "223211",
    "221132",
    "221231",
    "213212",
    "223112",
    "312131",
    "311222",
    "321122",
    "321221",
    "312212",
    "322112",
    "322211",
    "212123",
    "212321",
    "232121",
    "111323",
    "131123",
    "131321",
    "112313",
    "132113",
    "132311",
    "211313",
    "231113",
    "231311",
    "112133",
    "112331",
    "132131",
    "113123",
    "113321",
    "133121",
    "313121",
    "211331",
    "231131",
    "213113",
    "213311",
    "213131",
    "311123",
    "311321",
    "331121",
    "312113",
    "312311",
    "332111",
    "314111",
    "221411",
    "431111",
    "111224",
    "111422",
    "121124",
    "121421",
    "141122",
    "141221",
    "112214",
    "112412",
    "122114",
    "122411",
    "142112",
    "142211",
    "241211",
    "221114",
    "413111",
    "241112",
    "134111",
    "111242",
    "121142",
    "121241",
    "114212",
    "124112",
    "124211",
    "411212",
    "421112",
    "421211",
    "212141",
    "214121",
    "412121",
    "111143",
    "111341",
    "131141",
    "114113",
    "114311",
    "411113",
    "411311",
    "113141",
    "114131",
    "311141",
    "411131",
    "211412",
    "211214",
    "211232",
    "2331112",
)
START_B = 104
STOP = 106
QUIET_MODULES = 10


class BarcodeError(ValueError):
    """Text that code set B cannot carry (outside printable ASCII) or that is empty."""


def code128_values(text: str) -> list[int]:
    """The symbol values of `text` in code set B: start, data, check character, stop."""
    if not text or any(not 32 <= ord(char) <= 126 for char in text):
        raise BarcodeError(f"Code 128 B carries printable ASCII only, not {text!r}.")
    data = [ord(char) - 32 for char in text]
    check = (START_B + sum(position * value for position, value in enumerate(data, 1))) % 103
    return [START_B, *data, check, STOP]


def code128_modules(text: str) -> list[tuple[bool, int]]:
    """The symbol as (is a bar, width in modules) runs, quiet zones excluded."""
    runs = []
    for value in code128_values(text):
        for index, width in enumerate(PATTERNS[value]):
            runs.append((index % 2 == 0, int(width)))
    return runs


def code128_svg(text: str, *, module: float = 2, height: float = 60) -> str:
    """An inline SVG of `text` as Code 128 B, `module` px per module, with its text under the bars."""
    x = QUIET_MODULES * module
    bars = []
    for is_bar, width in code128_modules(text):
        if is_bar:
            bars.append((f"{x:g}", f"{width * module:g}"))
        x += width * module
    total = x + QUIET_MODULES * module
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" class="pit-barcode" width="{}" height="{}" viewBox="0 0 {} {}" '
        'role="img" aria-label="barcode {}"><rect width="100%" height="100%" fill="#fff"/>{}'
        '<text x="{}" y="{}" text-anchor="middle" font-family="monospace" font-size="14">{}</text></svg>',
        f"{total:g}",
        f"{height + 18:g}",
        f"{total:g}",
        f"{height + 18:g}",
        text,
        format_html_join("", '<rect x="{}" y="0" width="{}" height="' + f"{height:g}" + '" fill="#000"/>', bars),
        f"{total / 2:g}",
        f"{height + 15:g}",
        text,
    )
