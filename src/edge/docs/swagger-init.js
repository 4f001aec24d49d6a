// Starts Swagger UI on the service's own OpenAPI document (a file, so the page's CSP needs no inline script).

// An operation open to anonymous callers that also takes a token ([{}, {bearer: []}]: a token shows
// the caller's own flags and clubs) would get the padlock of one that needs a token: Swagger UI
// leaves it out only for exactly [{}]. So its summary line is drawn as for [{}]. The document is
// untouched: when a token is set, "Try it out" still sends it.
const OptionalTokenWithoutPadlock = () => ({
  wrapComponents: {
    OperationSummary: (Original, system) => (props) => {
      const security = props.operationProps.get('security')
      const anonymous = security && security.find((requirement) => requirement.isEmpty())
      if (!anonymous || security.size === 1) return system.React.createElement(Original, props)
      const operationProps = props.operationProps.set('security', security.clear().push(anonymous))
      return system.React.createElement(Original, { ...props, operationProps })
    },
  },
})

window.onload = () => {
  window.ui = SwaggerUIBundle({
    url: '/swagger/json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    plugins: [OptionalTokenWithoutPadlock],
  })
}
