// SPDX-License-Identifier: MIT
package advshim.bench;

/**
 * A command line walked a word at a time, the way advshim-lucene and
 * advshim-opensearch read theirs: a word that starts with "--" is an
 * option, whose value follows its first '=' (--threads=4) or is the next
 * word (--threads 4); every other word is an operand.
 *
 * <p>It splits and never judges: it throws nothing and knows no option.
 * Which options are flags, what a second operand, a value given to a flag
 * or a missing value means, and which exception says so (with which
 * message) are the caller's.  The loop of a parser:
 *
 * <pre>
 * Args w = new Args(argv, 1);
 * String v;
 *
 * while (w.next()) {
 *     if (!w.isOption())
 *         operand(w.word());
 *     else if (isFlag(w.name()))
 *         flag(w.name());          // w.inlineValue() != null: --flag=VALUE
 *     else if ((v = w.value()) == null)
 *         throw new XException(w.name() + " needs a value");
 *     else
 *         option(w.name(), v);
 * }
 * </pre>
 */
public final class Args {
	private final String[] argv;
	private int i;
	private String name;
	private String inline;

	/** The words of @argv from index @first on; next() moves to the first. */
	public Args(String[] argv, int first) {
		this.argv = argv;
		this.i = first - 1;
	}

	/** Moves to the next word (past a value that value() took); false after the last. */
	public boolean next() {
		if (i + 1 >= argv.length)
			return false;
		String a = argv[++i];
		int eq = a.indexOf('=');

		if (a.startsWith("--") && eq > 0) {
			name = a.substring(0, eq);
			inline = a.substring(eq + 1);
		} else {
			name = a;
			inline = null;
		}
		return true;
	}

	/** The current word as it was given. */
	public String word() {
		return argv[i];
	}

	/** Whether the current word is an option: it starts with "--". */
	public boolean isOption() {
		return argv[i].startsWith("--");
	}

	/**
	 * An option's name: the word up to its first '=' ("--threads" of
	 * "--threads=4"), or the whole word when it has none; an operand's
	 * is the whole word.
	 */
	public String name() {
		return name;
	}

	/**
	 * The value an option carries after its first '=' (possibly empty, for
	 * "--threads="; the rest of the word, '=' included, for "--x=a=b"), or
	 * null when it has no '=' (or the word is an operand).  Takes no word.
	 */
	public String inlineValue() {
		return inline;
	}

	/**
	 * The option's value: inlineValue() when there is one, else the next
	 * word, which is taken (next() moves past it) whatever it is, even
	 * another "--" word; null when there is no '=' and the current word is
	 * the last.  Call it once per option, and only for an option that
	 * takes a value.
	 */
	public String value() {
		if (inline != null)
			return inline;
		if (i + 1 >= argv.length)
			return null;
		return argv[++i];
	}
}
