/* joules/export.h — what a shared libjoules exports.
 *
 * The library is compiled with hidden visibility (-fvisibility=hidden), so a
 * shared build exports only what the public headers declare: each header
 * wraps its declarations in JL_API_BEGIN ... JL_API_END, which make every
 * declaration between them visible (GCC and Clang; `#pragma GCC visibility`).
 * Internal functions (src/, declared outside include/joules/) stay hidden.
 * A begin/end pair per header rather than a JL_API mark on every declaration:
 * a function added to a public header is exported without anyone having to
 * remember a macro, and headers edited in parallel do not all conflict on
 * their declaration lines. JL_API marks one declaration where a header needs
 * it outside the pair. In a static build (the default) the marks change
 * nothing but symbol visibility inside libjoules.a.
 */
#ifndef JOULES_EXPORT_H
#define JOULES_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define JL_API __attribute__((visibility("default")))
#define JL_API_BEGIN _Pragma("GCC visibility push(default)")
#define JL_API_END _Pragma("GCC visibility pop")
#else
#define JL_API
#define JL_API_BEGIN
#define JL_API_END
#endif

#endif
