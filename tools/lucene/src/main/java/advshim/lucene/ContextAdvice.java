// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.apache.lucene.store.MMapDirectory;

/**
 * --read-advice context: MMapDirectory.setReadAdvice(ADVISE_BY_CONTEXT), as
 * OpenSearch 3.x configures its directories.  Looked up reflectively: the
 * constant appeared in Lucene 10.3 (10.0-10.2 took the advice from the
 * IOContext itself), and LUCENE_VERSION may build against those.
 */
final class ContextAdvice {
	private ContextAdvice() {
	}

	/** Applies ADVISE_BY_CONTEXT to @dir; IOException when this Lucene has none. */
	static void apply(MMapDirectory dir) throws IOException {
		try {
			Field f = MMapDirectory.class.getField("ADVISE_BY_CONTEXT");

			for (Method m : MMapDirectory.class.getMethods()) {
				if (m.getName().equals("setReadAdvice") && m.getParameterCount() == 1
				    && m.getParameterTypes()[0].isInstance(f.get(null))) {
					m.invoke(dir, f.get(null));
					return;
				}
			}
		} catch (NoSuchFieldException | IllegalAccessException | InvocationTargetException e) {
			throw new IOException("--read-advice context: Lucene " + Main.luceneVersion()
					      + " has no usable MMapDirectory.ADVISE_BY_CONTEXT (added in 10.3): " + e, e);
		}
		throw new IOException("--read-advice context: Lucene " + Main.luceneVersion()
				      + " has no MMapDirectory.setReadAdvice taking ADVISE_BY_CONTEXT");
	}
}
