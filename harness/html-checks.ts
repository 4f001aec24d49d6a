/**
 * Whether a tag in `html` has an event-handler attribute. Quoted attribute values are set aside first:
 * escaped text in a value (a search box showing what was searched) is no attribute, while a quote
 * that markup smuggled in would leave what follows it outside a value, where it still shows.
 */
export const hasEventHandler = (html: string) => /<[a-z][^>]*\son[a-z]+\s*=/i.test(html.replace(/"[^"]*"/g, '""'))
