"""U staged with cp.async (sm_80+), issued before ITrans: its L2 latency overlaps ITrans's work.

In each channel chunk the fused kernel computes ITrans into its V slice, then copies its U slice
from global to shared memory through registers (LDG then STS, waiting on L2), then runs the MMA.
The U copy depends on nothing ITrans does, so here it moves in front of ITrans as 16-byte
`cp.async.cg` copies (global -> shared without registers, bypassing L1), and the warp waits for
them (`cp.async.wait_group 0`) just before the barrier that precedes the MMA. Each warp stages
only its own slice, as before, so the warp barriers stay what they were.
"""

from __future__ import annotations

import regex

from .cblocks import indent_of, line_span
from .errors import ReconstructError
from .passes import SHMEM_MARK, reads_u, u_copies, u_staging_loop
from .source import Kernel
from .text import IDENT, INT_DECL, U_FROM_L2, VEC_COPY, VECTOR_BYTES, declared_names, named_pass

WAIT = 'asm volatile("cp.async.wait_group 0;\\n" ::);'
COMMIT = 'asm volatile("cp.async.commit_group;\\n" ::);'


def _async_copy(match: regex.Match) -> str:
    """The vector copy `*(T*)dst = *(T*)src;` as one 16-byte cp.async."""
    if VECTOR_BYTES.get(match["vt"]) != 16:
        raise ReconstructError(f"U is copied as {match['vt']}; cp.async.cg needs 16 bytes")
    indent = indent_of(match.string, match.start())
    return (f'{indent}asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" :: '
            f'"r"((unsigned)__cvta_generic_to_shared({match["dst"]})), "l"({match["src"]}));')


def stages_u(fused: Kernel) -> bool:
    """Whether fused copies U into shared memory (not B fragments straight from L2)."""
    return U_FROM_L2.search(fused.body) is None and bool(u_copies(fused.body))


@named_pass
def async_u_staging(fused: Kernel) -> Kernel:
    """fused with each chunk's U staging loop (and the int locals TVM declared for it just
    before) moved in front of ITrans as cp.async copies, waited for where the loop was."""
    body = fused.body
    loop = u_staging_loop(fused)
    start = loop.start
    while (decl := _last_line_match(body, start, INT_DECL)) is not None:
        start = decl
    marks = list(regex.finditer(rf"^[ ]*// {regex.escape(SHMEM_MARK)}", body[:start], regex.M))
    if not marks:
        raise ReconstructError(f"no `// {SHMEM_MARK}` ITrans part before U's staging")
    ahead = line_span(body, marks[-1].start())[0]
    moved, skipped = body[start:loop.end], body[ahead:start]
    clash = (set(IDENT.findall(moved)) - declared_names(moved)) & declared_names(skipped)
    if clash:
        raise ReconstructError(f"U's staging uses {sorted(clash)}, declared in the ITrans part")
    if indent_of(body, ahead) != indent_of(body, start):
        raise ReconstructError("U's staging and the ITrans part are not in the same block")
    copied = VEC_COPY.sub(lambda m: _async_copy(m) if reads_u(m) else m[0], moved)
    indent = indent_of(body, start)
    body = (body[:ahead] + copied + f"{indent}{COMMIT}\n" + skipped + f"{indent}{WAIT}\n"
            + body[loop.end:])
    return Kernel(fused.name, fused.launch_bounds, fused.params, body)


def _last_line_match(text: str, pos: int, pattern: regex.Pattern) -> int | None:
    """Start of the line ending just before pos if pattern matches it whole, else None."""
    if pos == 0:
        return None
    begin = text.rfind("\n", 0, pos - 1) + 1
    return begin if pattern.fullmatch(text, begin, pos) else None
