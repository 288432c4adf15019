/* test-insn.c: finding the accessing instruction before a data breakpoint's RIP. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "watch/insn.h"
#include "check.h"

/*
 * The code is checked in as bytes (the encodings from the SDM opcode
 * tables, each line one instruction), so a compiler change cannot move
 * them; the test decodes up to the end of the last line, where a data
 * breakpoint on that instruction's access would leave RIP.
 */
#define BASE 0xffffffff81000000ull

struct want {
	const char *text;
	unsigned len;
	bool reads, writes, atomic;
	unsigned mem_size;
	enum insn_how how;
};

static char why[512];

static int decode(const uint8_t *bytes, size_t len, bool at_start, struct insn_info *got)
{
	struct insn_code code = {
		.addr = BASE, .bytes = bytes, .len = len, .addr_is_start = at_start
	};

	why[0] = '\0';
	return insn_before_trap(&code, BASE + len, got, why, sizeof(why));
}

static void expect(const uint8_t *bytes, size_t len, bool at_start, const struct want *w)
{
	struct insn_info got;
	int rc = decode(bytes, len, at_start, &got);

	CHECK_EQ_U64(rc, 0);
	if (rc) {
		fprintf(stderr, "  wanted '%s': %s\n", w->text, why);
		return;
	}
	if (strcmp(got.text, w->text) != 0)
		fprintf(stderr, "  got '%s', wanted '%s'\n", got.text, w->text);
	CHECK(strcmp(got.text, w->text) == 0);
	CHECK_EQ_U64(got.len, w->len);
	CHECK_EQ_U64(got.addr, BASE + len - w->len);
	CHECK_EQ_U64(got.reads, w->reads);
	CHECK_EQ_U64(got.writes, w->writes);
	CHECK_EQ_U64(got.atomic, w->atomic);
	CHECK_EQ_U64(got.mem_size, w->mem_size);
	CHECK_EQ_U64(got.how, w->how);
}

static void expect_unknown(const uint8_t *bytes, size_t len, bool at_start, const char *words)
{
	struct insn_info got;

	CHECK(decode(bytes, len, at_start, &got) == -ENOENT);
	CHECK_CONTAINS(why, "unknown instruction");
	CHECK_CONTAINS(why, words);
	CHECK_EQ_U64(got.len, 0);
}

/* A whole small function, decoded from its first byte. */
static void test_function(void)
{
	static const uint8_t fn[] = {
		0x55,				    /* push rbp */
		0x48, 0x89, 0xe5,		    /* mov rbp, rsp */
		0x8b, 0x05, 0x10, 0x20, 0x00, 0x00, /* mov eax, [rip + 0x2010] */
		0x83, 0xc0, 0x01,		    /* add eax, 1 */
		0x89, 0x05, 0x07, 0x20, 0x00, 0x00, /* mov [rip + 0x2007], eax */
	};
	static const struct want store = {
		"mov dword ptr [rip + 0x2007], eax", 6, false, true, false, 4, INSN_FORWARD
	};
	static const struct want load = {
		"mov eax, dword ptr [rip + 0x2010]", 6, true, false, false, 4, INSN_FORWARD
	};

	expect(fn, sizeof(fn), true, &store);
	expect(fn, 10, true, &load);
	/* Without the start, the displacement's trailing 00 00 is an instruction too. */
	expect_unknown(fn, sizeof(fn), false, "instructions with a memory access end at RIP");
	/* A RIP inside an instruction: forward decoding passes it, and the
	 * bytes before it hold no memory access that ends there. */
	expect_unknown(fn, 12, true, "decoding forward");
}

/*
 * 48 89 07 is mov [rdi], rax; its tail 89 07 is mov [rdi], eax, which
 * also ends at RIP.  Only the forward decode tells the 8-byte store.
 */
static void test_prefix_ambiguity(void)
{
	static const uint8_t fn[] = {
		0x31, 0xc0,	  /* xor eax, eax */
		0x48, 0x89, 0x07, /* mov [rdi], rax */
	};
	static const struct want w = {
		"mov qword ptr [rdi], rax", 3, false, true, false, 8, INSN_FORWARD
	};

	expect(fn, sizeof(fn), true, &w);
	expect_unknown(fn, sizeof(fn), false, "'mov dword ptr [rdi], eax'");
}

/* Data in code stops the forward decode; the bytes before RIP still give one answer. */
static void test_data_in_code(void)
{
	static const uint8_t fn[] = {
		0xeb, 0x02,	  /* jmp over the next two bytes */
		0xff, 0xff,	  /* not an instruction */
		0x8b, 0x47, 0x08, /* mov eax, [rdi + 8] */
	};
	static const struct want w = {
		"mov eax, dword ptr [rdi + 8]", 3, true, false, false, 4, INSN_BACKWARD
	};

	expect(fn, sizeof(fn), true, &w);
	expect(fn, sizeof(fn), false, &w);
}

/* One instruction at a time: access kinds, sizes, and capstone's flags fixed up. */
static void test_access_kinds(void)
{
	static const struct {
		uint8_t bytes[8];
		unsigned len;
		struct want w;
	} cases[] = {
		{ { 0x0f, 0xb6, 0x07 },
		  3,
		  { "movzx eax, byte ptr [rdi]", 3, true, false, false, 1, INSN_FORWARD } },
		{ { 0x66, 0x89, 0x07 }, 3, { "mov word ptr [rdi], ax", 3, false, true, false, 2, INSN_FORWARD } },
		{ { 0x01, 0x07 }, 2, { "add dword ptr [rdi], eax", 2, true, true, false, 4, INSN_FORWARD } },
		{ { 0xf0, 0x0f, 0xc1, 0x07 },
		  4,
		  { "lock xadd dword ptr [rdi], eax", 4, true, true, true, 4, INSN_FORWARD } },
		{ { 0xf0, 0xff, 0x07 }, 3, { "lock inc dword ptr [rdi]", 3, true, true, true, 4, INSN_FORWARD } },
		/* XCHG with memory is locked without a prefix. */
		{ { 0x48, 0x87, 0x07 },
		  3,
		  { "xchg qword ptr [rdi], rax", 3, true, true, true, 8, INSN_FORWARD } },
		/* Capstone 4 says CMPXCHG only reads: it writes. */
		{ { 0x0f, 0xb1, 0x0f },
		  3,
		  { "cmpxchg dword ptr [rdi], ecx", 3, true, true, false, 4, INSN_FORWARD } },
		/* Capstone 4 says TEST writes: it only reads. */
		{ { 0xf6, 0x07, 0x01 }, 3, { "test byte ptr [rdi], 1", 3, true, false, false, 1, INSN_FORWARD } },
		{ { 0x39, 0x07 }, 2, { "cmp dword ptr [rdi], eax", 2, true, false, false, 4, INSN_FORWARD } },
		/* String instructions: [rsi] read and [rdi] written. */
		{ { 0xf3, 0x48, 0xa5 },
		  3,
		  { "rep movsq qword ptr [rdi], qword ptr [rsi]", 3, true, true, false, 8, INSN_FORWARD } },
		{ { 0x48, 0xab }, 2, { "stosq qword ptr [rdi], rax", 2, false, true, false, 8, INSN_FORWARD } },
		/* The stack is memory too. */
		{ { 0x50 }, 1, { "push rax", 1, false, true, false, 8, INSN_FORWARD } },
		{ { 0x66, 0x50 }, 2, { "push ax", 2, false, true, false, 2, INSN_FORWARD } },
		{ { 0x58 }, 1, { "pop rax", 1, true, false, false, 8, INSN_FORWARD } },
		/* push [mem] reads its operand (size first) and writes the stack. */
		{ { 0xff, 0x37 }, 2, { "push qword ptr [rdi]", 2, true, true, false, 8, INSN_FORWARD } },
		{ { 0x8f, 0x07 }, 2, { "pop qword ptr [rdi]", 2, true, true, false, 8, INSN_FORWARD } },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect(cases[i].bytes, cases[i].len, true, &cases[i].w);
}

/* The detail behind push [mem]'s summary: two accesses, in operand order. */
static void test_access_list(void)
{
	static const uint8_t push_mem[] = { 0xff, 0x37 };
	struct insn_info got;

	CHECK(decode(push_mem, sizeof(push_mem), true, &got) == 0);
	CHECK_EQ_U64(got.naccesses, 2);
	CHECK_EQ_U64(got.accesses[0].where, INSN_MEM_OPERAND);
	CHECK(got.accesses[0].read && !got.accesses[0].write);
	CHECK_EQ_U64(got.accesses[1].where, INSN_MEM_STACK);
	CHECK(!got.accesses[1].read && got.accesses[1].write);
	CHECK_EQ_U64(got.accesses[1].size, 8);
}

static void test_unknown(void)
{
	static const uint8_t nops[] = { 0x90, 0x90, 0x90, 0x90 };
	/* lea computes an address and touches no memory. */
	static const uint8_t lea[] = { 0x48, 0x8d, 0x07 };
	/* The 8-byte nop's operand is padding. */
	static const uint8_t nopl[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	struct insn_code code = { .addr = BASE, .bytes = nops, .len = sizeof(nops) };
	struct insn_info got;

	expect_unknown(nops, sizeof(nops), true, "does not access memory");
	expect_unknown(nops, sizeof(nops), false, "no instruction with a memory access");
	expect_unknown(lea, sizeof(lea), true, "'lea rax, [rdi]'");
	expect_unknown(nopl, sizeof(nopl), true, "does not access memory");
	/* RIP at the first byte: a branch target, nothing before it to decode. */
	expect_unknown(nops, 0, true, "branch target");
	/* RIP outside the bytes given. */
	CHECK(insn_before_trap(&code, BASE + 5, &got, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "outside the code given");
	CHECK(insn_before_trap(&code, BASE - 1, &got, why, sizeof(why)) == -EINVAL);
}

int main(void)
{
	test_function();
	test_prefix_ambiguity();
	test_data_in_code();
	test_access_kinds();
	test_access_list();
	test_unknown();
	return check_exit_status("test-insn");
}
