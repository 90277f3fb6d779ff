// SPDX-License-Identifier: MIT
package advshim.lucene;

/** A bad command line: the message is printed with the usage, exit status 2. */
final class UsageException extends Exception {
	private static final long serialVersionUID = 1L;

	UsageException(String message) {
		super(message);
	}
}
